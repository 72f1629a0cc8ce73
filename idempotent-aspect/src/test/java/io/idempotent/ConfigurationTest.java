package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.StoreSettings;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigurationTest {

  static final AtomicReference<StoreSettings> LAST_SETTINGS = new AtomicReference<>();

  public static class DurableProvider implements IdempotencyStoreProvider {
    @Override
    public String name() {
      return "durable";
    }

    @Override
    public int priority() {
      return 100;
    }

    @Override
    public IdempotencyStore create(StoreSettings settings) {
      LAST_SETTINGS.set(settings);
      return new InMemoryTestStore();
    }
  }

  public static class MemoryProvider implements IdempotencyStoreProvider {
    @Override
    public String name() {
      return "memory";
    }

    @Override
    public int priority() {
      return 10;
    }

    @Override
    public IdempotencyStore create(StoreSettings settings) {
      return new InMemoryTestStore();
    }
  }

  @TempDir
  Path dir;

  private ClassLoader loaderWith(Class<?>... providers) throws Exception {
    Path services = dir.resolve("META-INF/services");
    Files.createDirectories(services);
    StringBuilder sb = new StringBuilder();
    for (Class<?> p : providers) {
      sb.append(p.getName()).append('\n');
    }
    Files.writeString(services.resolve(IdempotencyStoreProvider.class.getName()), sb.toString());
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader()) {
      @Override
      public java.util.Enumeration<URL> getResources(String name) throws java.io.IOException {
        return findResources(name); // only the services file written here, not the class path's
      }
    };
  }

  @Test
  void builder_time_isTheSystemsUnlessSet_andClockReplacesOnlyTheWallClock() {
    assertThat(IdempotencyConfig.builder().store(new InMemoryTestStore()).build().time())
        .isSameAs(TimeSource.system());
    ManualTimeSource ticker = new ManualTimeSource();
    Clock fixed = Clock.fixed(Instant.parse("2001-02-03T04:05:06Z"), ZoneOffset.UTC);
    IdempotencyConfig c = IdempotencyConfig.builder().store(new InMemoryTestStore()).time(ticker).clock(fixed).build();
    long before = c.time().nanoTime();
    ticker.advance(Duration.ofSeconds(5));
    assertThat(c.time().nanoTime() - before).as("nanoTime is still the ticker's").isEqualTo(5_000_000_000L);
    assertThat(c.clock()).isSameAs(fixed);
    assertThat(c.time().clock()).isSameAs(fixed);
    assertThat(c.toBuilder().build().clock()).isSameAs(fixed);
    assertThat(c.toBuilder().time(ticker).build().time()).as("a later time source replaces both").isSameAs(ticker);
  }

  @Test
  void load_noProviderOnTheClassPath_explainsWhatToAdd() throws Exception {
    assertThatThrownBy(() -> Idempotency.fromProperties(Map.of(), loaderWith()))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("idempotent-jdbi").hasMessageContaining("idempotent-caffeine");
  }

  @Test
  void load_unnamed_picksTheHighestPriorityProvider() throws Exception {
    IdempotencyConfig c = Idempotency.fromProperties(Map.of(), loaderWith(MemoryProvider.class, DurableProvider.class));
    assertThat(c.defaultStoreName()).isEqualTo("durable");
  }

  @Test
  void load_namedStore_isChosen_andGetsItsSettings() throws Exception {
    IdempotencyConfig c = Idempotency.fromProperties(
        Map.of("idempotent.store", "durable", "IDEMPOTENT_DURABLE_POOL_SIZE", "7", "idempotent.durable.table", "t1",
            "idempotent.ttl", "PT2H", "idempotent.lease", "PT5S", "idempotent.wait-timeout", "PT3S"),
        loaderWith(MemoryProvider.class, DurableProvider.class));
    assertThat(c.defaultStoreName()).isEqualTo("durable");
    assertThat(LAST_SETTINGS.get().getInt("pool-size", 0)).isEqualTo(7);
    assertThat(LAST_SETTINGS.get().get("table", "")).isEqualTo("t1");
    assertThat(c.defaultTtl()).isEqualTo(Duration.ofHours(2));
    assertThat(c.defaultLease()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.defaultWaitTimeout()).isEqualTo(Duration.ofSeconds(3));
  }

  @Test
  void load_unknownStoreName_listsTheAvailableOnes() throws Exception {
    assertThatThrownBy(() -> Idempotency.fromProperties(Map.of("idempotent.store", "redis"),
        loaderWith(MemoryProvider.class, DurableProvider.class)))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("'redis'").hasMessageContaining("durable, memory");
  }

  @Test
  void load_disabled_needsNoStore() throws Exception {
    IdempotencyConfig c = Idempotency.fromProperties(Map.of("idempotent.enabled", "false"), loaderWith());
    assertThat(c.enabled()).isFalse();
  }

  @Test
  void load_badDuration_namesTheProperty() throws Exception {
    assertThatThrownBy(() -> Idempotency.fromProperties(Map.of("idempotent.ttl", "24h"), loaderWith(MemoryProvider.class)))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessage("Property idempotent.ttl is '24h'; expected an ISO-8601 duration such as PT30S or PT24H");
  }

  @Test
  void storeSettings_badNumber_namesTheProperty() {
    StoreSettings s = new StoreSettings("jdbi", Map.of("pool.size", "many"));
    assertThatThrownBy(() -> s.getInt("pool-size", 1)).hasMessageContaining("idempotent.jdbi.pool-size")
        .hasMessageContaining("many");
  }

  @Test
  void storeSettings_typedGetters_readTheValueOrTheDefault() {
    StoreSettings s = new StoreSettings("redis", Map.of("ssl", " TRUE ", "create_schema", "false",
        "purge-interval", "PT5M", "pool-size", "12", "blank", " "));
    assertThat(s.getBoolean("ssl", false)).isTrue();
    assertThat(s.getBoolean("create-schema", true)).isFalse();
    assertThat(s.getBoolean("absent", true)).isTrue();
    assertThat(s.getBoolean("blank", false)).isFalse();
    assertThat(s.getDuration("purge-interval", Duration.ZERO)).isEqualTo(Duration.ofMinutes(5));
    assertThat(s.getDuration("absent", Duration.ofSeconds(2))).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.getInt("pool-size", 1)).isEqualTo(12);
    assertThat(s.getInt("blank", 3)).isEqualTo(3);
  }

  @Test
  void storeSettings_badBooleanOrDuration_namesThePropertyAndTheValue() {
    StoreSettings s = new StoreSettings("redis", Map.of("ssl", "yes", "timeout", "2s"));
    assertThatThrownBy(() -> s.getBoolean("ssl", false))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessage("Property idempotent.redis.ssl is 'yes'; expected true or false");
    assertThatThrownBy(() -> s.getDuration("timeout", Duration.ofSeconds(2)))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessage("Property idempotent.redis.timeout is '2s'; expected an ISO-8601 duration such as PT30S or PT24H");
  }

  @Test
  void builder_unknownDefaultStore_isRejected() {
    assertThatThrownBy(() -> IdempotencyConfig.builder().build())
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("'default'");
    assertThatThrownBy(() -> IdempotencyConfig.builder().defaultTtl(Duration.ZERO))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("defaultTtl");
  }

  static class BadlyAnnotated {
    @Idempotent(key = "#orderid")
    public String a(String orderId) {
      return orderId;
    }

    @Idempotent(key = "#orderId", ttl = "one day")
    public String b(String orderId) {
      return orderId;
    }

    @Idempotent(key = "#orderId", onInProgress = OnInProgress.SKIP)
    public int c(String orderId) {
      return 1;
    }

    @Idempotent(key = "#orderId")
    public String fine(String orderId) {
      return orderId;
    }
  }

  @Test
  void validate_reportsEveryBadAnnotation() {
    assertThatThrownBy(() -> Idempotency.validate(BadlyAnnotated.class))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("BadlyAnnotated.a(String)").hasMessageContaining("unknown parameter 'orderid'")
        .hasMessageContaining("@Idempotent(ttl) of ")
        .hasMessageContaining("BadlyAnnotated.b(String) is 'one day'; expected an ISO-8601 duration")
        .hasMessageContaining("SKIP but returns a primitive")
        .hasMessageNotContaining("fine");
  }

  @Test
  void validate_goodClass_passes() {
    Class<?> good = io.idempotent.woven.PaymentService.class;
    // a class without idempotent methods would pass without anything being validated
    assertThat(Arrays.stream(good.getDeclaredMethods()).filter(m -> m.isAnnotationPresent(Idempotent.class)))
        .as("idempotent methods of %s", good.getSimpleName()).hasSizeGreaterThanOrEqualTo(4);
    assertThatCode(() -> Idempotency.validate(good)).doesNotThrowAnyException();
    // validated next to a bad class, the good one adds nothing to the problems listed
    assertThatThrownBy(() -> Idempotency.validate(good, BadlyAnnotated.class))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("BadlyAnnotated.a(String)")
        .hasMessageNotContaining(good.getSimpleName());
  }
}
