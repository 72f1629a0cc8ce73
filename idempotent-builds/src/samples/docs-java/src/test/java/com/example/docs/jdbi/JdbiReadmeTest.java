package com.example.docs.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.PurgeScheduler;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.layered.LayeredIdempotencyStore;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** idempotent-jdbi's README: its three ways to build the table store, each on an H2 database of its own. */
class JdbiReadmeTest {

  private final Orders orders = new Orders();

  private static Jdbi database(String name) {
    Jdbi jdbi = Jdbi.create("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
    jdbi.useHandle(h -> h.execute("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY)"));
    return jdbi;
  }

  private static int rows(Jdbi jdbi) {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM orders").mapTo(Integer.class).one());
  }

  @Test
  void theTableStoreOnItsOwn() {
    Jdbi jdbi = database("jdbi-store");

    // README snippet: jdbi-store
    try (purging) {
      jdbi.useHandle(h -> orders.create(h, "o-1"));
      jdbi.useHandle(h -> orders.create(h, "o-1"));
    }

    assertThat(rows(jdbi)).isEqualTo(1);
  }

  @Test
  void inTheCallersTransaction() {
    Jdbi jdbi = database("jdbi-joined");
    String orderId = "o-2";

    // README snippet: jdbi-joined
    jdbi.useTransaction(h -> orders.create(h, orderId));   // a retry

    assertThat(rows(jdbi)).isEqualTo(1);
  }

  @Test
  void layeredWithANearCache() {
    Jdbi jdbi = database("jdbi-layered");

    // README snippet: jdbi-layered
    jdbi.useHandle(h -> orders.create(h, "o-3"));
    jdbi.useHandle(h -> orders.create(h, "o-3"));

    assertThat(rows(jdbi)).isEqualTo(1);
  }
}
