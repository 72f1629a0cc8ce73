package io.idempotent.examples.rabbitmq;

import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.JdbiStoreProvider;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.StoreSettings;
import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * The consumer's database: the JDBI idempotency store in joined mode and the table of booked orders, on
 * one pool. Opening it installs the store for the woven {@code @Idempotent} methods; closing it uninstalls
 * it and closes the pool. Open and close it from one thread.
 *
 * <p>The store comes from the same provider and settings an application configures with properties
 * ({@code idempotent.jdbi.url}, {@code .user}, {@code .password}, {@code .mode=joined-transaction-scoped}):
 * in a joined mode a {@link io.idempotent.Effects#TRANSACTIONAL} call writes its claim and its outcome in
 * the transaction the calling thread has open on the store's {@code Jdbi}, next to the call's own writes.
 */
public final class OrderDatabase implements AutoCloseable {

  /** The table of the consumer's idempotency records. */
  public static final String RECORDS = "order_idempotency_record";

  private final JdbiIdempotencyStore store;

  private OrderDatabase(JdbiIdempotencyStore store) {
    this.store = store;
  }

  /**
   * Opens the store from {@code jdbiSettings} (the {@code idempotent.jdbi.*} settings without their prefix:
   * {@code url}, {@code user}, {@code password}, ...), in joined mode, creates the tables where missing and
   * installs the store for the woven methods.
   */
  public static OrderDatabase open(Map<String, String> jdbiSettings) {
    Map<String, String> settings = new HashMap<>(jdbiSettings);
    settings.put("mode", "joined-transaction-scoped");
    settings.putIfAbsent("table", RECORDS);
    JdbiIdempotencyStore store =
        (JdbiIdempotencyStore) new JdbiStoreProvider().create(new StoreSettings("jdbi", settings));
    try {
      OrderBook.createTable(store.jdbi());
      Idempotency.install(IdempotencyConfig.builder().store(store).build());
      return new OrderDatabase(store);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /** The store's {@code Jdbi}: open the booking transactions on it, so the store joins them. */
  public Jdbi jdbi() {
    return store.jdbi();
  }

  public JdbiIdempotencyStore store() {
    return store;
  }

  @Override
  public void close() {
    Idempotency.uninstall();
    store.close();
  }
}
