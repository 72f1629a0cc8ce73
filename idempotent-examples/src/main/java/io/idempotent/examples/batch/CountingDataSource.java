package io.idempotent.examples.batch;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A small pool of JDBC connections (from {@link DriverManager}) that counts what its connections send to the
 * database: statements executed ({@code execute}, {@code executeQuery}, {@code executeUpdate},
 * {@code executeBatch}: one round trip each), commits and rollbacks. Enough for the batch consumers and their
 * measurements; not a general-purpose pool. Thread-safe.
 */
public final class CountingDataSource implements DataSource, AutoCloseable {

  private final String url;
  private final String user;
  private final String password;
  private final int size;
  private final BlockingQueue<Connection> idle = new LinkedBlockingQueue<>();
  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicLong statements = new AtomicLong();
  private final AtomicLong commits = new AtomicLong();
  private final AtomicLong rollbacks = new AtomicLong();
  private volatile boolean closed;

  /** A pool of at most {@code size} connections to {@code url}. */
  public CountingDataSource(String url, String user, String password, int size) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.size = size;
  }

  /** Statements executed on the pool's connections so far. */
  public long statements() {
    return statements.get();
  }

  /** Commits so far. */
  public long commits() {
    return commits.get();
  }

  /** Rollbacks so far. */
  public long rollbacks() {
    return rollbacks.get();
  }

  @Override
  public Connection getConnection() throws SQLException {
    if (closed) {
      throw new SQLException("The pool is closed");
    }
    Connection physical = idle.poll();
    if (physical == null && opened.incrementAndGet() <= size) {
      try {
        physical = DriverManager.getConnection(url, user, password);
      } catch (SQLException | RuntimeException e) {
        opened.decrementAndGet();
        throw e;
      }
    } else if (physical == null) {
      opened.decrementAndGet();
      try {
        physical = idle.poll(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("Interrupted while waiting for a connection", e);
      }
      if (physical == null) {
        throw new SQLException("No connection free within 10 s (pool of " + size + ")");
      }
    }
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        new Lease(physical));
  }

  @Override
  public Connection getConnection(String username, String pass) throws SQLException {
    throw new SQLFeatureNotSupportedException("The pool has one account");
  }

  @Override
  public void close() {
    closed = true;
    for (Connection c = idle.poll(); c != null; c = idle.poll()) {
      try {
        c.close();
      } catch (SQLException e) {
        // closing anyway
      }
    }
  }

  /** One borrowing of a physical connection: closing it gives the connection back. */
  private final class Lease implements InvocationHandler {
    private final Connection physical;
    private boolean returned;

    Lease(Connection physical) {
      this.physical = physical;
    }

    @Override
    public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
      String name = method.getName();
      switch (name) {
        case "equals" -> {
          return args != null && proxy == args[0];
        }
        case "hashCode" -> {
          return System.identityHashCode(proxy);
        }
        case "toString" -> {
          return "pooled " + physical;
        }
        case "close" -> {
          giveBack();
          return null;
        }
        case "isClosed" -> {
          return returned || physical.isClosed();
        }
        case "commit" -> commits.incrementAndGet();
        case "rollback" -> rollbacks.incrementAndGet();
        default -> {}
      }
      if (returned) {
        throw new SQLException("The connection was closed");
      }
      Object result = forward(physical, method, args);
      if (result instanceof CallableStatement s) {
        return counting(s, CallableStatement.class);
      } else if (result instanceof PreparedStatement s) {
        return counting(s, PreparedStatement.class);
      } else if (result instanceof Statement s && name.equals("createStatement")) {
        return counting(s, Statement.class);
      }
      return result;
    }

    private synchronized void giveBack() throws SQLException {
      if (returned) {
        return;
      }
      returned = true;
      if (physical.isClosed() || closed) {
        opened.decrementAndGet();
        physical.close();
        return;
      }
      if (!physical.getAutoCommit()) {
        physical.rollback();
        physical.setAutoCommit(true);
      }
      idle.add(physical);
    }
  }

  private Object counting(Statement statement, Class<? extends Statement> type) {
    InvocationHandler handler = (proxy, method, args) -> {
      switch (method.getName()) {
        case "equals" -> {
          return args != null && proxy == args[0];
        }
        case "hashCode" -> {
          return System.identityHashCode(proxy);
        }
        default -> {}
      }
      if (method.getName().startsWith("execute")) {
        statements.incrementAndGet();
      }
      return forward(statement, method, args);
    };
    return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {type}, handler);
  }

  private static @Nullable Object forward(Object target, Method method, @Nullable Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause() != null ? e.getCause() : e;
    }
  }

  @Override
  public @Nullable PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(@Nullable PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    if (iface.isInstance(this)) {
      return iface.cast(this);
    }
    throw new SQLException("Not a wrapper of " + iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return iface.isInstance(this);
  }

  @Override
  public String toString() {
    return "CountingDataSource[" + url + ", " + size + " connections]";
  }
}
