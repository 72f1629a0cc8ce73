package io.idempotent.jdbi;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Wraps a data source and counts what reaches the database: statement executions and transaction
 * control (commit, rollback, auto-commit changes). Each is one network round trip on a server database.
 * What the pool itself does (validation of idle connections) happens below and is not counted.
 */
public final class CountingDataSource {

  private static final Set<String> EXECUTE = Set.of("execute", "executeQuery", "executeUpdate",
      "executeLargeUpdate", "executeBatch", "executeLargeBatch");
  private static final Set<String> TRANSACTION = Set.of("commit", "rollback", "setAutoCommit", "setSavepoint",
      "releaseSavepoint", "setTransactionIsolation");

  public final AtomicInteger roundTrips = new AtomicInteger();
  public final DataSource dataSource;

  public CountingDataSource(DataSource target) {
    this.dataSource = proxy(DataSource.class, target, (m, result) -> {
      if (m.getName().equals("getConnection")) {
        return proxy(Connection.class, (Connection) result, this::connectionResult);
      }
      return result;
    });
  }

  /** The count so far, and starts again from zero. */
  public int reset() {
    return roundTrips.getAndSet(0);
  }

  private Object connectionResult(Method m, Object result) {
    if (TRANSACTION.contains(m.getName())) {
      roundTrips.incrementAndGet();
    }
    if (result instanceof CallableStatement cs) {
      return proxy(CallableStatement.class, cs, this::statementResult);
    }
    if (result instanceof PreparedStatement ps) {
      return proxy(PreparedStatement.class, ps, this::statementResult);
    }
    if (result instanceof Statement s) {
      return proxy(Statement.class, s, this::statementResult);
    }
    return result;
  }

  private Object statementResult(Method m, Object result) {
    return result;
  }

  private interface AfterCall {
    Object apply(Method method, Object result);
  }

  private <T> T proxy(Class<T> type, T target, AfterCall after) {
    InvocationHandler handler = (p, m, args) -> {
      if (type != DataSource.class && type != Connection.class && EXECUTE.contains(m.getName())) {
        roundTrips.incrementAndGet();
      }
      try {
        return after.apply(m, m.invoke(target, args));
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
    return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler));
  }
}
