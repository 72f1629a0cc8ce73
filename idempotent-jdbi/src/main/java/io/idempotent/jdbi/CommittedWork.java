package io.idempotent.jdbi;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.ClaimResult;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The store's own units of work, each on a connection of its own and committed at once: repeated after a
 * serialization failure or a deadlock (SQLState {@code 40001}, {@code 40P01}; MariaDB's deadlock 1213
 * reports {@code 40001}). Sessions that default to {@code REPEATABLE READ} or {@code SERIALIZABLE} raise
 * them even for one-statement transactions. Repeating is safe: such a failure rolled the unit back, and
 * every write is fenced by the owner token (or, for a purge, decided again from the rows as they are then).
 */
final class CommittedWork {

  /** How often a unit of work, or a claim that a concurrent change hid the row from, is tried. */
  static final int ATTEMPTS = 20;

  private final Connections connections;
  private final TableStatements statements;

  CommittedWork(Connections connections, TableStatements statements) {
    this.connections = connections;
    this.statements = statements;
  }

  /** Runs {@code work}, refused while the database is taken for unreachable. */
  <R> R repeating(Connections.Work<R> work) {
    return repeating(work, true);
  }

  /** As {@link #repeating(Connections.Work)}, not refused while the database is taken for unreachable unless {@code pausable}. */
  <R> R repeating(Connections.Work<R> work, boolean pausable) {
    for (int attempt = 1; ; attempt++) {
      try {
        return connections.run(work, pausable);
      } catch (RuntimeException e) {
        if (attempt >= ATTEMPTS || !statements.isRetryable(NamedSql.sqlState(e))) {
          throw e;
        }
        pause(attempt);
      }
    }
  }

  /**
   * A claim committed at once: one statement, repeated after a serialization failure ({@link #repeating}),
   * and again when a concurrent change hid the row from it (the dialect answers null).
   */
  ClaimResult claim(TableStatements.ClaimRequest request) {
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      TableStatements.Claim claim = repeating(c -> statements.claim(c, request));
      if (claim != null) {
        return answer(claim);
      }
    }
    throw new IdempotencyStoreException("The claim did not settle after " + ATTEMPTS + " attempts under"
        + " contention", null);
  }

  /** What a dialect's claim means to the engine. */
  static ClaimResult answer(TableStatements.Claim claim) {
    if (!claim.claimed()) {
      return ClaimResult.existing(Objects.requireNonNull(claim.existing(), "an unclaimed key's record"));
    }
    return claim.takenOver() ? ClaimResult.takenOver() : ClaimResult.acquired();
  }

  private static void pause(int attempt) {
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2L + Math.min(attempt * 5L, 50L)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while repeating a statement of the idempotency store", e);
    }
  }
}
