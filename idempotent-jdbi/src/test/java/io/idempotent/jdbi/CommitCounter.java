package io.idempotent.jdbi;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Wraps a data source and counts the commits it sees: {@code commit()} calls and statements that end in
 * {@code COMMIT}, and apart from them statements executed while auto-commit is on (each of which commits on
 * its own), reads ({@code SELECT …} prepared) left out: they write nothing to commit.
 */
final class CommitCounter {

  private static final Set<String> EXECUTE = Set.of("execute", "executeQuery", "executeUpdate",
      "executeLargeUpdate", "executeBatch", "executeLargeBatch");

  final AtomicInteger commits = new AtomicInteger();
  final AtomicInteger autoCommitted = new AtomicInteger();
  final AtomicInteger rollbacks = new AtomicInteger();
  /** The text of every statement executed, prepared or not, in order. */
  final java.util.List<String> executed = new java.util.concurrent.CopyOnWriteArrayList<>();
  final DataSource dataSource;

  CommitCounter(DataSource target) {
    dataSource = proxy(DataSource.class, target, (m, args, result) ->
        m.getName().equals("getConnection") ? connection((Connection) result) : result);
  }

  private Connection connection(Connection c) {
    return proxy(Connection.class, c, (m, args, result) -> {
      if (m.getName().equals("commit")) {
        commits.incrementAndGet();
      }
      if (m.getName().equals("rollback")) {
        rollbacks.incrementAndGet();
      }
      if (result instanceof Statement s) {
        Class<? extends Statement> type = s instanceof java.sql.PreparedStatement
            ? java.sql.PreparedStatement.class : Statement.class;
        // a statement that ends its transaction itself ("…; COMMIT") commits when it runs
        String sql = args != null && args.length > 0 && args[0] instanceof String text
            ? text.trim().toUpperCase(java.util.Locale.ROOT) : "";
        boolean commitsItself = sql.endsWith("; COMMIT");
        return statement(type, s, c, commitsItself, sql);
      }
      return result;
    });
  }

  /** @param prepared the prepared statement's text, upper case, or empty for a plain statement */
  private <S extends Statement> S statement(Class<S> type, Statement s, Connection c, boolean commitsItself,
      String prepared) {
    boolean read = prepared.startsWith("SELECT ");
    return proxy(type, type.cast(s), (m, args, result) -> result, args -> {
      executed.add(args != null && args.length > 0 && args[0] instanceof String text ? text : prepared);
      if (commitsItself) {
        commits.incrementAndGet();
      } else if (c.getAutoCommit() && !read) {
        autoCommitted.incrementAndGet();
      }
    });
  }

  private interface After {
    Object apply(java.lang.reflect.Method m, Object[] args, Object result) throws Exception;
  }

  private interface Before {
    void run(Object[] args) throws Exception;
  }

  private <T> T proxy(Class<T> type, T target, After after) {
    return proxy(type, target, after, null);
  }

  private <T> T proxy(Class<T> type, T target, After after, Before beforeExecute) {
    InvocationHandler h = (p, m, args) -> {
      if (beforeExecute != null && EXECUTE.contains(m.getName())) {
        beforeExecute.run(args);
      }
      try {
        return after.apply(m, args, m.invoke(target, args));
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    };
    return type.cast(Proxy.newProxyInstance(CommitCounter.class.getClassLoader(), new Class<?>[] {type}, h));
  }
}
