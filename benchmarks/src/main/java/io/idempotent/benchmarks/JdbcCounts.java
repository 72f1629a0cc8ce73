package io.idempotent.benchmarks;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Counts what an application asks of its JDBC driver, for a database with no wire to watch (H2 in the
 * process): statements executed ({@code execute…} on any statement), and the commits and rollbacks asked
 * for on connections ({@link Connection#commit()}, {@link Connection#rollback()}; the commit of an
 * auto-commit statement is not among them). {@link #wrap} puts the counting in front of a data source;
 * every other call goes through unchanged, {@code unwrap} included. Thread-safe.
 */
final class JdbcCounts {

  final LongAdder statements = new LongAdder();
  final LongAdder commits = new LongAdder();
  final LongAdder rollbacks = new LongAdder();

  /** {@code target}, counting here. */
  DataSource wrap(DataSource target) {
    return proxy(DataSource.class, target, (m, result) -> m.getName().equals("getConnection") && result != null
        ? proxy(Connection.class, result, this::connectionCall) : result);
  }

  private Object connectionCall(Method m, Object result) {
    switch (m.getName()) {
      case "commit" -> commits.increment();
      case "rollback" -> rollbacks.increment();
      case "createStatement", "prepareStatement", "prepareCall" -> {
        if (result == null) {
          return null;
        }
        Class<?> type = m.getReturnType();
        return proxy(type.asSubclass(Statement.class), result, this::statementCall);
      }
      default -> { }
    }
    return result;
  }

  private Object statementCall(Method m, Object result) {
    if (m.getName().startsWith("execute")) {
      statements.increment();
    }
    return result;
  }

  /** What is done with a call's result before it is returned: counted, or wrapped in turn. */
  private interface After {
    Object apply(Method m, @Nullable Object result);
  }

  private static <T> T proxy(Class<T> type, Object target, After after) {
    InvocationHandler handler = (p, m, args) -> {
      Object result;
      try {
        result = m.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      return after.apply(m, result);
    };
    return type.cast(Proxy.newProxyInstance(JdbcCounts.class.getClassLoader(), new Class<?>[] {type}, handler));
  }
}
