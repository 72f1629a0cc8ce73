package io.idempotent.assemblies;

/** What the caller has open around the idempotent call. */
enum CallerContext {
  NONE("no transaction", Transaction.NONE, 0),
  /** A Spring-managed transaction on the store's {@code DataSource}. */
  SPRING_TRANSACTION("Spring transaction", Transaction.SPRING, 1),
  /** {@code jdbi.inTransaction} on the store's {@code Jdbi}. */
  JDBI_TRANSACTION("JDBI transaction", Transaction.JDBI, 1),
  /** The call in a {@code REQUIRES_NEW} transaction inside an outer one; the caller fails in the outer one. */
  REQUIRES_NEW("REQUIRES_NEW inside a transaction", Transaction.SPRING, 2),
  /** An {@code @Idempotent} method called by another's, both in a Spring transaction. */
  NESTED("nested @Idempotent call in a Spring transaction", Transaction.SPRING, 1);

  /** The kind of transaction around the call. */
  enum Transaction { NONE, SPRING, JDBI }

  final String label;
  final Transaction transaction;
  /** How many connections the caller itself holds while the call runs. */
  final int connectionsHeld;

  CallerContext(String label, Transaction transaction, int connectionsHeld) {
    this.label = label;
    this.transaction = transaction;
    this.connectionsHeld = connectionsHeld;
  }

  boolean inTransaction() {
    return transaction != Transaction.NONE;
  }

  /**
   * Whether the caller's rollback after the call returned is a rollback of the transaction the call was made
   * in. Not for {@link #REQUIRES_NEW}: the outer transaction rolls back, the call's own had committed.
   */
  boolean rollbackEndsTheCallsTransaction() {
    return inTransaction() && this != REQUIRES_NEW;
  }

  boolean nested() {
    return this == NESTED;
  }
}
