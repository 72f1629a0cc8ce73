package io.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.JdbiStoreProvider;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoEnvironmentTest {

  @Test
  void forgetEarlierRuns_deletesTheDemosRecordsAndRows_andNothingElse() {
    Map<String, String> db = TestDatabases.freshH2();
    try (DemoEnvironment env = DemoEnvironment.open(db)) {
      // an application's records in the default table of the same database
      JdbiIdempotencyStore appStore = JdbiIdempotencyStore.builder(env.jdbi()).createSchema(true).build();
      Idempotency app = Idempotency.create(IdempotencyConfig.builder().store(appStore).build());
      app.call("app.orders", String.class).key("k1").run(() -> "kept");
      env.idempotency().call("shop.test", String.class).key("k1").run(() -> "forgotten");
      env.jdbi().useHandle(h -> h.execute("INSERT INTO shop_order (id, status) VALUES ('o-1', 'PAID')"));
      assertThat(env.liveRecords()).isEqualTo(1);

      assertThat(env.forgetEarlierRuns()).isEqualTo(1);

      assertThat(env.liveRecords()).isZero();
      assertThat(rows(env, "shop_order")).isZero();
      assertThat(rows(env, "idempotency_record")).as("the application's records").isEqualTo(1);
    }
  }

  private static int rows(DemoEnvironment env, String table) {
    return env.jdbi().withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + table).mapTo(Integer.class).one());
  }

  @Test
  void location_namesTheH2FileOrTheUrlWithoutParameters() {
    Map<String, String> db = new HashMap<>(TestDatabases.freshH2());
    try (DemoEnvironment env = DemoEnvironment.open(db)) {
      assertThat(env.location()).startsWith("jdbc:h2:mem:shop-").doesNotContain("LOCK_TIMEOUT")
          .endsWith(", table " + DemoEnvironment.TABLE);
    }
    assertThat(JdbiStoreProvider.defaultH2Path().toString()).endsWith(".idempotent/idempotent");
  }
}
