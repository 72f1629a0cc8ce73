package io.idempotent.benchmarks;

import javax.sql.DataSource;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;

/**
 * The peer: Apache Camel's JDBC idempotent repository on the same pool. A first call is {@code add}
 * (a transaction with a {@code SELECT COUNT(*)} and an {@code INSERT}), the method, then {@code
 * confirm}; a duplicate is detected with {@code contains}. It keeps neither result nor fingerprint, so
 * a duplicate learns only that the key was seen. Thread-safe as Camel's repository is.
 */
final class CamelPeer implements AutoCloseable {

  private final JdbcMessageIdRepository repository;

  CamelPeer(DataSource dataSource, String processorName) {
    repository = new JdbcMessageIdRepository(dataSource, processorName);
    repository.setTableName(SqlRig.CAMEL);
    repository.setCreateTableIfNotExists(false);
    repository.start();
  }

  <T> T first(String orderId, java.util.function.Supplier<T> body) {
    if (!repository.add(orderId)) {
      throw new IllegalStateException("duplicate");
    }
    T r = body.get();
    repository.confirm(orderId);
    return r;
  }

  boolean duplicate(String orderId) {
    if (!repository.contains(orderId)) {
      throw new IllegalStateException("a completed key was not found");
    }
    return true;
  }

  @Override
  public void close() {
    repository.stop();
  }
}
