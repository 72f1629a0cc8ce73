package io.idempotent.spring;

import io.idempotent.jdbi.CallerTransactions;
import java.sql.Connection;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Spring-managed transactions on one {@code DataSource}, for the SQL store: a transactional call's claim and
 * outcome are written on the connection of the transaction {@code @Transactional} (or a
 * {@code TransactionTemplate}) opened on the calling thread, so they commit or roll back with the method's
 * own writes, and an undeclared call made inside such a transaction is recognised. Any end but a
 * commit releases the claim, once the transaction is over, so a retry runs. A transaction suspended for a
 * {@code REQUIRES_NEW} one keeps what it joined, and the new one joins its own.
 *
 * <p>The transaction must be one the {@code DataSource}'s transaction manager opened
 * ({@code DataSourceTransactionManager}, {@code JdbcTransactionManager}, or {@code JpaTransactionManager}
 * exposing the same {@code DataSource}); the store's own claims must run on connections outside it, so
 * build the store on the plain {@code DataSource}, not on a {@code TransactionAwareDataSourceProxy}.
 *
 * <p>A rollback to a savepoint ({@code NESTED} propagation) is not seen: an outcome written after the
 * savepoint and rolled back to it leaves the claim in progress until its lease runs out.
 */
public final class SpringTransactions implements CallerTransactions {

  private final DataSource dataSource;
  /** The key under which each transaction's {@link SpringTransaction} is bound, one per store. */
  private final Object resourceKey = new Object();

  private SpringTransactions(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  /** The transactions Spring manages on {@code dataSource}. */
  public static SpringTransactions on(DataSource dataSource) {
    return new SpringTransactions(dataSource);
  }

  @Override
  public @Nullable Transaction current() {
    if (!TransactionSynchronizationManager.isSynchronizationActive()
        || !TransactionSynchronizationManager.isActualTransactionActive()) {
      return null;
    }
    Object bound = TransactionSynchronizationManager.getResource(dataSource);
    if (!(bound instanceof ConnectionHolder holder) || !holder.isSynchronizedWithTransaction()) {
      return null; // a transaction of another resource: its commit would not carry the outcome
    }
    SpringTransaction joined = (SpringTransaction) TransactionSynchronizationManager.getResource(resourceKey);
    if (joined == null || joined.holder != holder) {
      joined = new SpringTransaction(holder);
      TransactionSynchronizationManager.bindResource(resourceKey, joined);
      TransactionSynchronizationManager.registerSynchronization(joined);
    }
    return joined;
  }

  /** A Spring transaction that is active but holds no connection of the store's {@code DataSource}. */
  @Override
  public @Nullable String unjoinable() {
    if (TransactionSynchronizationManager.isActualTransactionActive()
        && !(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder
            && holder.isSynchronizedWithTransaction())) {
      return "Spring-managed transaction on another resource than the store's DataSource";
    }
    return null;
  }

  @Override
  public String joinable() {
    return "Spring-managed transaction on the store's DataSource (one of another transaction manager or"
        + " DataSource cannot be seen)";
  }

  @Override
  public String toString() {
    return "SpringTransactions[" + dataSource + "]";
  }

  /** One Spring transaction as the store joins it; it follows the transaction through suspension. */
  private final class SpringTransaction implements Transaction, TransactionSynchronization {
    final ConnectionHolder holder;
    final Joined joined = new Joined();

    SpringTransaction(ConnectionHolder holder) {
      this.holder = holder;
    }

    @Override
    public Connection connection() {
      return holder.getConnection();
    }

    @Override
    public void joining(String storedKey, Runnable release) {
      joined.joining(storedKey, release);
    }

    @Override
    public boolean isJoined(String storedKey) {
      return joined.isJoined(storedKey);
    }

    @Override
    public void afterCommit(Runnable action) {
      joined.afterCommit(action);
    }

    @Override
    public void suspend() {
      TransactionSynchronizationManager.unbindResourceIfPossible(resourceKey);
    }

    @Override
    public void resume() {
      TransactionSynchronizationManager.bindResource(resourceKey, this);
    }

    @Override
    public void afterCompletion(int status) {
      TransactionSynchronizationManager.unbindResourceIfPossible(resourceKey);
      joined.ended(status == STATUS_COMMITTED); // an unknown outcome releases: releases are fenced
    }
  }
}
