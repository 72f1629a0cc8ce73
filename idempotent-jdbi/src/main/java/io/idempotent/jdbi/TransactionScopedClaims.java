package io.idempotent.jdbi;

import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.OutcomeFields;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The claims whose row is written in a transaction that stays open until the call's outcome is written in
 * it too: the transaction the calling thread has open (a transactional call, in any mode), or one this
 * class opens on a connection of its own (a call recorded on its own in
 * {@link TransactionMode#TRANSACTION_SCOPED} or {@link TransactionMode#JOINED_TRANSACTION_SCOPED} mode)
 * and keeps, by owner token, until {@link #complete} commits it or {@link #release} rolls it back. Nothing
 * of a claim is committed on its own, so nothing is left behind when the process or the database dies
 * before the commit.
 *
 * <p>The methods return null for an owner whose claim is not open here (a claim made before, in another
 * mode, or one whose joined transaction has ended): the store then runs its ordinary statement.
 * Thread-safe; one call's claim is used by one thread at a time.
 */
final class TransactionScopedClaims {

  /** How often a claim that a concurrent commit hid from its statement is repeated before giving up. */
  private static final int ATTEMPTS = 20;

  private final Connections connections;
  private final TableStatements statements;
  private final NoWaitClaim noWait;
  /** Where a duplicate's look-up finds the caller's transaction, to read in it. */
  private final CallerTransactions transactions;
  private final Map<String, Open> open = new ConcurrentHashMap<>();

  TransactionScopedClaims(Connections connections, TableStatements statements, NoWaitClaim noWait,
      CallerTransactions transactions) {
    this.connections = connections;
    this.statements = statements;
    this.noWait = noWait;
    this.transactions = transactions;
  }

  /** How a completion went: whether the outcome was written, and the caller's transaction it was written in. */
  record Completed(boolean completed, CallerTransactions.@Nullable Transaction joined) {}

  /** One call's open claim: in the caller's transaction ({@code joined}), or on a connection of its own. */
  private record Open(String storedKey, CallerTransactions.@Nullable Transaction joined, Connections.@Nullable Held held,
      boolean autoCommit) {
    /** The connection of a claim in a transaction of the store's own (one not joined to the caller's). */
    Connections.Held ownHeld() {
      return java.util.Objects.requireNonNull(held, "a claim of the store's own holds its connection");
    }
  }

  /** Claims in {@code joined}, the calling thread's transaction, which the outcome then commits with. */
  ClaimResult claimJoined(CallerTransactions.Transaction joined, TableStatements.ClaimRequest r) {
    for (int attempt = 1; ; attempt++) {
      // under READ COMMITTED each statement sees what has committed before it: a repeat finds the row
      // that a concurrent commit hid from the last one
      TableStatements.Claim claim;
      try {
        claim = noWait.claim(joined.connection(), r);
      } catch (IdempotencyStoreException e) {
        if ("23505".equals(NamedSql.sqlState(e))) {
          // the key's row was committed after this transaction's snapshot (REPEATABLE READ, SERIALIZABLE): it
          // cannot see the row its insert meets, so no repeat in it settles; the caller must run it again
          throw new IdempotencyStoreException("The key was claimed by a transaction that committed after this"
              + " transaction's snapshot was taken, which this transaction cannot see (REPEATABLE READ or"
              + " SERIALIZABLE); retry the transaction", new java.sql.SQLTransactionRollbackException(
                  "could not serialize access to the idempotency record", "40001", e));
        }
        throw e;
      }
      if (claim != null) {
        if (claim.claimed()) {
          String owner = r.owner();
          open.put(owner, new Open(r.key(), joined, null, false));
          // the claim is forgotten here however the transaction ends; the database drops the row with a
          // rollback by itself
          joined.joining(r.key(), () -> open.remove(owner));
          joined.afterCommit(() -> open.remove(owner));
        }
        return answer(claim, r);
      }
      if (attempt >= ATTEMPTS) {
        throw new IdempotencyStoreException("The claim did not settle after " + attempt + " attempts under"
            + " contention", null);
      }
    }
  }

  /** Claims in a transaction of the store's own, on a connection kept until the outcome commits it. */
  ClaimResult claimOwn(TableStatements.ClaimRequest r) {
    for (int attempt = 1; ; attempt++) {
      Connections.Held held = connections.hold();
      boolean kept = false;
      boolean ended = false;
      boolean autoCommit = true;
      try {
        Connection c = held.connection();
        autoCommit = c.getAutoCommit();
        TableStatements.Claim live = noWait.liveBeforeOwn(c, r);
        if (live != null) {
          ended = autoCommit; // in auto-commit nothing was begun; otherwise the read's transaction is rolled back
          return answer(live, r);
        }
        if (autoCommit) {
          c.setAutoCommit(false);
        }
        TableStatements.Claim claim;
        try {
          claim = noWait.claimOwn(c, r);
        } catch (RuntimeException e) {
          if (attempt >= ATTEMPTS || !statements.isRetryable(NamedSql.sqlState(e))) {
            throw e;
          }
          claim = null;
        }
        if (claim != null && claim.claimed()) {
          open.put(r.owner(), new Open(r.key(), null, held, autoCommit));
          kept = true;
          return answer(claim, r);
        }
        c.rollback(); // nothing of a replay, a duplicate or a repeat is kept
        ended = true;
        if (claim != null) {
          return answer(claim, r);
        }
      } catch (SQLException e) {
        throw Connections.failure(e);
      } finally {
        if (!kept) {
          giveBack(held, autoCommit, ended, null);
        }
      }
      if (attempt >= ATTEMPTS) {
        throw new IdempotencyStoreException("The claim did not settle after " + attempt + " attempts under"
            + " contention", null);
      }
    }
  }

  @SuppressWarnings("ReferenceEquality") // BUSY is a marker instance: only that object means busy
  private static ClaimResult answer(TableStatements.Claim claim, TableStatements.ClaimRequest r) {
    if (claim == TableStatements.BUSY) {
      // its fingerprint and owner are in a row this transaction cannot see
      return ClaimResult.existing(IdempotencyRecord.inProgress(r.key(), "", null));
    }
    if (!claim.claimed()) {
      return ClaimResult.existing(Objects.requireNonNull(claim.existing(), "an unclaimed key's record"));
    }
    return claim.takenOver() ? ClaimResult.takenOver() : ClaimResult.acquired();
  }

  /**
   * Writes the outcome in the claim's transaction; one of its own then commits. Joined, a failure to
   * write it throws {@link IdempotencyRollbackRequiredException}: the caller's transaction holds the
   * method's writes and must not commit them without their record.
   *
   * @param detached the outcome arrived on another thread, after the call returned: a joined claim's
   *     transaction is not this thread's, so the store writes it on its own (null is returned)
   */
  @Nullable Completed complete(String storedKey, String owner, OutcomeFields columns, long ttlMicros, boolean detached) {
    Open o = open.get(owner);
    if (o == null || !o.storedKey.equals(storedKey) || (o.joined != null && detached)) {
      return null;
    }
    if (o.joined != null) {
      int updated;
      try {
        updated = statements.complete(o.joined.connection(), storedKey, owner, columns, ttlMicros);
      } catch (RuntimeException e) {
        throw new IdempotencyRollbackRequiredException("Could not record the outcome inside the caller's"
            + " transaction; the transaction must roll back so that its writes are not committed without"
            + " their record", e);
      }
      if (updated != 1) {
        throw new IdempotencyRollbackRequiredException("The claim written in the caller's transaction is"
            + " gone before its outcome could be recorded there; the transaction must roll back so that its"
            + " writes are not committed without their record", null);
      }
      return new Completed(true, o.joined);
    }
    open.remove(owner);
    Connections.Held held = o.ownHeld();
    Connection c = held.connection();
    @Nullable RuntimeException failure = null;
    boolean ended = false;
    try {
      Boolean done = noWait.completeAndCommit(c, storedKey, owner, columns, ttlMicros);
      if (done != null) {
        ended = true;
        return new Completed(done, null);
      }
      int updated = statements.complete(c, storedKey, owner, columns, ttlMicros);
      if (updated == 1) {
        c.commit();
        ended = true;
        return new Completed(true, null);
      }
      return new Completed(false, null); // cannot happen while the transaction holds the row; rolled back below
    } catch (SQLException e) {
      failure = Connections.failure(e);
      throw failure;
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    } finally {
      giveBack(held, o.autoCommit, ended, failure);
    }
  }

  /**
   * Gives the key up: rolls the claim's own transaction back, or deletes the claim row inside the
   * caller's transaction (which a rollback of that transaction would drop anyway).
   */
  @Nullable Boolean release(String storedKey, String owner) {
    Open o = open.get(owner);
    if (o == null || !o.storedKey.equals(storedKey)) {
      return null;
    }
    if (o.joined != null) {
      try {
        return statements.release(o.joined.connection(), storedKey, owner) == 1;
      } catch (RuntimeException e) {
        if ("25P02".equals(NamedSql.sqlState(e))) {
          return true; // PostgreSQL: the transaction has failed and can only roll back, claim and all
        }
        throw e;
      }
    }
    open.remove(owner);
    // the rollback drops the claim row; even if it fails, closing the connection (or the pool's reset)
    // ends the transaction without a commit
    giveBack(o.ownHeld(), o.autoCommit, false, null);
    return true;
  }

  /** True while the claim is open here: an uncommitted claim needs no lease, nobody else can see it. */
  @Nullable Boolean renew(String owner) {
    return open.containsKey(owner) ? Boolean.TRUE : null;
  }

  /**
   * The committed live row of {@code key}, or, when there is none but a transaction holds an
   * uncommitted claim of it (as far as the database can tell), an in-progress record; read in the calling
   * thread's joined transaction when it has one, so that a duplicate waiting there borrows no second
   * connection. Elsewhere it is a unit of work of the store's own, run by {@code own} (which repeats it after
   * a serialization failure: a session that defaults to {@code SERIALIZABLE} can fail even a lone read).
   */
  Optional<IdempotencyRecord> find(String key, Function<Connections.Work<StoredRow>, StoredRow> own) {
    CallerTransactions.Transaction joined = currentOrNone();
    StoredRow row;
    boolean running;
    if (joined != null) {
      row = statements.find(joined.connection(), key);
      running = row == null && noWait.running(joined.connection(), key);
    } else {
      boolean[] held = new boolean[1];
      row = own.apply(c -> {
        StoredRow r = statements.find(c, key);
        held[0] = r == null && noWait.running(c, key);
        return r;
      });
      running = held[0];
    }
    if (row != null) {
      return Optional.of(row.toRecord(key));
    }
    return running ? Optional.of(IdempotencyRecord.inProgress(key, "", null)) : Optional.empty();
  }

  /** The calling thread's transaction, or null (also when it has several, which a look-up need not choose from). */
  CallerTransactions.@Nullable Transaction currentOrNone() {
    try {
      return transactions.current();
    } catch (IdempotencyStoreException e) {
      return null;
    }
  }

  /**
   * Puts the connection back as it was borrowed and returns it, rolling back first unless its transaction
   * has {@code ended}; a {@code failure} collects what else fails. When the rollback fails, auto-commit is
   * left off (switching it on would commit): closing the connection, or the pool's reset, rolls back.
   */
  private void giveBack(Connections.Held held, boolean autoCommit, boolean ended, @Nullable RuntimeException failure) {
    try {
      Connection c = held.connection();
      if (!ended) {
        c.rollback();
      }
      noWait.ownEnded(c);
      if (autoCommit) {
        c.setAutoCommit(true);
      }
    } catch (SQLException | RuntimeException e) {
      if (failure != null) {
        failure.addSuppressed(e);
      }
    } finally {
      try {
        held.close();
      } catch (RuntimeException e) {
        if (failure != null) {
          failure.addSuppressed(e);
        }
      }
    }
  }
}
