package io.idempotent;

/**
 * Where a method's effects live, relative to a transaction the calling thread has open on the store's
 * database: what decides whether its outcome must commit and roll back with that transaction, or survive
 * its rollback. Only the application knows; a store that can write in the caller's transaction (the SQL
 * table store) acts on it, see docs/DESIGN.md, Transactions.
 */
public enum Effects {
  /**
   * Not declared: the store's default decides. A table store in a joined mode takes the call as
   * {@link #TRANSACTIONAL}; in any other mode, a call made inside a transaction is refused before it
   * runs, since recording on its own could replay an effect that was rolled back, and recording in the
   * transaction could run an external effect twice. Outside a transaction the outcome is recorded on its
   * own.
   */
  UNDECLARED,
  /**
   * The effects are writes in the transaction the calling thread has open on the store's database: the
   * claim and the outcome are written in that transaction too, so they commit together or not at all, and
   * a retry after a rollback runs the method again. A call with no such transaction is refused (unless the
   * store allows it, then it is recorded on its own).
   */
  TRANSACTIONAL,
  /**
   * The effects are outside any transaction of the caller (an external API, a message, a file, another
   * database): the outcome is recorded on its own, committed at once, and survives a rollback of the
   * caller's transaction, so a retry replays it. Inside a transaction this takes a second connection from
   * the store's pool while the call claims and records.
   */
  EXTERNAL
}
