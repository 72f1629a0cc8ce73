package io.idempotent.assemblies;

import io.idempotent.Effects;

/**
 * What docs/DESIGN.md §7 ("How a call relates to the caller's transaction") says a cell must do, computed from
 * the cell rather than listed. The rules read as the table does:
 *
 * <ul>
 *   <li>an undeclared call is taken as transactional by the modes that join the caller's transaction, and as
 *       undeclared by the others;
 *   <li>{@code EXTERNAL}: recorded on its own, in every row;
 *   <li>no transaction: a transactional call is refused, an undeclared one is recorded on its own;
 *   <li>a transaction on the store's database (Spring's or JDBI's, {@code REQUIRES_NEW} for the inner one, or
 *       an outer call's): a transactional call is written in it, an undeclared one is refused.
 * </ul>
 *
 * The filter's own call is {@code EXTERNAL} in every mode (its row of the table), so behind the filter the
 * business method's declaration decides, as everywhere.
 *
 * @param recording where the outcome is written, or that the call is refused before the method runs
 * @param retryRunsAgain whether a retry after the caller's rollback (after the call returned) runs the method
 *     again: the rollback took the outcome with it. Otherwise the retry replays
 * @param connectionsPerCaller connections one caller holds at once by the design's sizing: its own
 *     transactions', and one more for a call recorded on its own inside a transaction (README, pool sizing)
 */
record Expected(Recording recording, boolean retryRunsAgain, int connectionsPerCaller) {

  enum Recording {
    /** {@code IdempotencyConfigurationException} before the method runs, naming both choices; nothing written. */
    REFUSED,
    /** Claim and outcome in the caller's transaction: committed with its writes, or rolled back with them. */
    IN_THE_CALLERS_TRANSACTION,
    /** Claim and outcome committed on their own (or in the store's own transaction): they survive a rollback. */
    ON_ITS_OWN
  }

  static Expected of(Cell cell) {
    Recording recording = recording(takenAs(cell.effects(), cell.mode()), cell.context().inTransaction());
    boolean runsAgain = recording == Recording.IN_THE_CALLERS_TRANSACTION
        && cell.context().rollbackEndsTheCallsTransaction();
    int extra = recording == Recording.ON_ITS_OWN && cell.context().inTransaction() ? 1 : 0;
    return new Expected(recording, runsAgain, Math.max(1, cell.context().connectionsHeld + extra));
  }

  /** An undeclared call is taken as transactional by the joined modes; a declaration is taken as it is. */
  static Effects takenAs(Effects declared, Mode mode) {
    return declared == Effects.UNDECLARED && mode.takesUndeclaredAsTransactional ? Effects.TRANSACTIONAL : declared;
  }

  /** The table's cell for a call taken as {@code taken}, made inside a transaction or not. */
  static Recording recording(Effects taken, boolean inTransaction) {
    if (taken == Effects.EXTERNAL) {
      return Recording.ON_ITS_OWN;
    }
    if (!inTransaction) {
      return taken == Effects.TRANSACTIONAL ? Recording.REFUSED : Recording.ON_ITS_OWN;
    }
    return taken == Effects.TRANSACTIONAL ? Recording.IN_THE_CALLERS_TRANSACTION : Recording.REFUSED;
  }

  boolean refused() {
    return recording == Recording.REFUSED;
  }
}
