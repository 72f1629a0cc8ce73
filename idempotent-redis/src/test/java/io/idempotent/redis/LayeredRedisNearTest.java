package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallResult;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * Redis as the near layer in front of the SQL table (H2 here): the composition passes the contract,
 * and a replay served from Redis does not reach the table (no connection to it is taken).
 */
class LayeredRedisNearTest extends IdempotencyStoreContract {

  private final String prefix = TestRedis.uniquePrefix("layered");
  private RedisIdempotencyStore near;
  private final AtomicInteger tableConnections = new AtomicInteger();

  @Override
  protected IdempotencyStore createStore() {
    TestRedis.requireReachable();
    near = TestRedis.store(prefix);
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:layered-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    // counted below JDBI: the store's own statements run on plain JDBC connections
    DataSource counting = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
          if (method.getName().equals("getConnection")) {
            tableConnections.incrementAndGet();
          }
          try {
            return method.invoke(h2, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    JdbiIdempotencyStore far = JdbiIdempotencyStore.builder(counting).createSchema(true).build();
    return new LayeredIdempotencyStore(near, far);
  }

  @Override
  protected void closeStore(IdempotencyStore store) {
    if (near != null) {
      near.close();
      TestRedis.deleteAll(prefix);
    }
  }

  @Override
  protected void advancePast(Duration d) throws InterruptedException {
    Thread.sleep(d.toMillis() + 50);
  }

  @Test
  void replay_servedFromRedis_doesNotReachTheTable() {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    AtomicInteger runs = new AtomicInteger();
    CallResult<String> first = idempotency.call("orders", String.class).key("o-1").payload("o-1")
        .execute(() -> "receipt-" + runs.incrementAndGet());
    int connectionsAfterFirstCall = tableConnections.get();
    assertThat(connectionsAfterFirstCall).as("connections to the table for the first call").isPositive();
    for (int i = 0; i < 20; i++) {
      CallResult<String> again = idempotency.call("orders", String.class).key("o-1").payload("o-1")
          .execute(() -> "receipt-" + runs.incrementAndGet());
      assertThat(again.replayed()).isTrue();
      assertThat(again.value()).isEqualTo(first.value());
    }
    assertThat(tableConnections.get()).as("connections to the table for the replays")
        .isEqualTo(connectionsAfterFirstCall);
    assertThat(runs).hasValue(1);
  }
}
