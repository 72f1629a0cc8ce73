package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreSettings;
import io.idempotent.spi.StoredOutcome;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Relaxed claim durability: claims commit asynchronously on PostgreSQL, everything else stays durable.
 * These tests show that the setting is scoped to the claim statement's own transaction, that claims
 * still decide who runs, and that completions are written as usual. What it trades away, a claim lost
 * in a crash of the database server, is shown on a real crash by {@code RelaxedClaimCrashTest} in the
 * reliability suite.
 */
class RelaxedClaimDurabilityTest {

  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final String SETTING = "set_config('synchronous_commit', 'off', true)";

  /** A data source that records the SQL of every statement prepared on its connections. */
  private static DataSource recording(DataSource target, List<String> sql) {
    return (DataSource) Proxy.newProxyInstance(RelaxedClaimDurabilityTest.class.getClassLoader(),
        new Class<?>[] {DataSource.class}, (p, m, args) -> {
          Object result = invoke(m, target, args);
          if (result instanceof Connection c) {
            return Proxy.newProxyInstance(RelaxedClaimDurabilityTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (cp, cm, cargs) -> {
                  if (cm.getName().startsWith("prepare") && cargs != null && cargs[0] instanceof String s) {
                    sql.add(s);
                  }
                  return invoke(cm, c, cargs);
                });
          }
          return result;
        });
  }

  private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Test
  void relaxedClaim_setsAsynchronousCommitInTheClaimStatementOnly_andTheSessionStaysDurable() {
    TestDatabase.POSTGRES.requireReachable();
    TestDatabase.POSTGRES.storeBuilder().build(); // the schema, once
    List<String> sql = new CopyOnWriteArrayList<>();
    try (HikariDataSource one = TestDatabase.POSTGRES.newPool(1, "relaxed")) {
      Jdbi jdbi = Jdbi.create(recording(one, sql));
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).relaxedClaimDurability(true).build();
      sql.clear(); // build() reads the catalog once to check the key column
      String key = "relaxed-" + UUID.randomUUID();

      assertThat(store.claim(key, "fp", "owner-1", LEASE).claimed()).isTrue();
      int claims = sql.size();
      assertThat(store.renew(key, "owner-1", LEASE)).isTrue();
      assertThat(store.complete(key, "owner-1", StoredOutcome.valueJson("\"done\""), Duration.ofHours(1))).isTrue();
      assertThat(store.find(key)).isPresent();

      assertThat(sql.subList(0, claims)).allMatch(s -> s.contains(SETTING));
      assertThat(sql.subList(claims, sql.size())).hasSize(3).noneMatch(s -> s.contains("synchronous_commit"));
      // one connection in the pool: the completion ran on the claim's connection, which kept the default
      try (Handle h = jdbi.open()) {
        assertThat(h.createQuery("SHOW synchronous_commit").mapTo(String.class).one()).isEqualTo("on");
      }
    }
  }

  @Test
  void durableClaim_carriesNoSetting() {
    TestDatabase.POSTGRES.requireReachable();
    TestDatabase.POSTGRES.storeBuilder().build();
    List<String> sql = new CopyOnWriteArrayList<>();
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(
        Jdbi.create(recording(TestDatabase.POSTGRES.pool(), sql))).build();
    assertThat(store.relaxedClaimDurability()).isFalse();

    assertThat(store.claim("durable-" + UUID.randomUUID(), "fp", "owner-1", LEASE).claimed()).isTrue();

    assertThat(sql).isNotEmpty().noneMatch(s -> s.contains("synchronous_commit"));
  }

  @Test
  void relaxedClaims_decideWhoRuns_andTheCompletionIsSeenByAnotherInstance() {
    TestDatabase.POSTGRES.requireReachable();
    TestDatabase.POSTGRES.storeBuilder().build();
    try (HikariDataSource own = TestDatabase.POSTGRES.newPool(2, "relaxed-instance")) {
      JdbiIdempotencyStore relaxed = JdbiIdempotencyStore.builder(own).relaxedClaimDurability(true).build();
      JdbiIdempotencyStore other = TestDatabase.POSTGRES.storeBuilder().build();
      String key = "relaxed-" + UUID.randomUUID();

      assertThat(relaxed.claim(key, "fp", "owner-1", LEASE).claimed()).isTrue();
      ClaimResult duplicate = other.claim(key, "fp", "owner-2", LEASE);
      assertThat(duplicate.claimed()).isFalse();
      assertThat(duplicate.existing().state()).isEqualTo(RecordState.IN_PROGRESS);
      assertThat(relaxed.claim(key, "fp", "owner-3", LEASE).claimed()).isFalse();

      assertThat(relaxed.complete(key, "owner-1", StoredOutcome.valueJson("\"done\""), Duration.ofHours(1))).isTrue();
      ClaimResult replay = other.claim(key, "fp", "owner-4", LEASE);
      assertThat(replay.claimed()).isFalse();
      assertThat(replay.existing().state()).isEqualTo(RecordState.COMPLETED);
      assertThat(replay.existing().outcome().json()).isEqualTo("\"done\"");
    }
  }

  @Test
  void build_relaxedOnH2_isRejected() {
    assertThatThrownBy(() -> TestDatabase.H2.storeBuilder().relaxedClaimDurability(true).build())
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("PostgreSQL");
  }

  @Test
  void provider_readsClaimDurability_andRejectsOtherValues() {
    TestDatabase.POSTGRES.requireReachable();
    TestDatabase db = TestDatabase.POSTGRES;
    IdempotencyStore created = new JdbiStoreProvider().create(new StoreSettings("jdbi", Map.of(
        "url", db.url, "user", db.user, "password", db.password, "pool-size", "1",
        "claim-durability", "Relaxed", "purge-interval", "PT0S")));
    try (JdbiIdempotencyStore store = (JdbiIdempotencyStore) created) {
      assertThat(store.relaxedClaimDurability()).isTrue();
    }
    assertThatThrownBy(() -> new JdbiStoreProvider().create(new StoreSettings("jdbi", Map.of(
        "url", db.url, "user", db.user, "password", db.password, "claim-durability", "sometimes"))))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("claim-durability");
  }
}
