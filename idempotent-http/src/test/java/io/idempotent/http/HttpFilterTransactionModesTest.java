package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The filter runs before (outside) any transaction of the application's: its calls are recorded on their
 * own on a table store in every mode, the joined ones included, which would refuse an undeclared call
 * with no transaction to join.
 */
class HttpFilterTransactionModesTest {

  @ParameterizedTest
  @EnumSource(TransactionMode.class)
  void theFiltersCalls_areRecordedOnTheirOwn_inEveryModeOfTheTableStore(TransactionMode mode) throws Exception {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:filter-" + mode + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(Jdbi.create(h2)).transactionMode(mode)
        .createSchema(true).build();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    ShopServlet shop = new ShopServlet();
    try (JettyServer server = JettyServer.start(shop, new TestAuthentication(),
        new IdempotencyFilter(HttpIdempotencySettings.builder().idempotency(idempotency).build()))) {
      Http http = new Http(server);
      String key = UUID.randomUUID().toString();
      HttpResponse<String> first = http.post("/orders", key, "{\"sku\":\"book\",\"qty\":2}");
      HttpResponse<String> retry = http.post("/orders", key, "{\"sku\":\"book\",\"qty\":2}");
      assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
      assertThat(retry.statusCode()).isEqualTo(201);
      assertThat(Http.replayed(retry)).isTrue();
      assertThat(retry.body()).isEqualTo(first.body());
      assertThat(shop.executions("/orders")).isEqualTo(1);
    } finally {
      shop.gate.countDown();
      store.close();
    }
  }
}
