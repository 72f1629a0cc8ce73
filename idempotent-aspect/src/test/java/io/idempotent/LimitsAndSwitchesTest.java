package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.OneTimeTokens;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Durations out of bounds, strict switches and messages that say what is wrong. */
class LimitsAndSwitchesTest {

  @TempDir
  Path dir;

  private final AtomicInteger runs = new AtomicInteger();

  private Idempotency memory() {
    return Idempotency.create(IdempotencyConfig.builder().store(new InMemoryTestStore(System::nanoTime, true)).build());
  }

  @Test
  void call_leaseBelowTheMinimum_isRefusedBeforeTheBodyRuns() {
    for (Duration lease : List.of(Duration.ofMillis(1), Duration.ofMillis(100), Duration.ofMillis(999))) {
      assertThatThrownBy(() -> memory().call("jobs.tiny", String.class).key("k").lease(lease).run(() -> {
        runs.incrementAndGet();
        return "ran";
      })).isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("jobs.tiny")
          .hasMessageContaining("between PT1S and PT24H");
    }
    assertThat(runs).hasValue(0);
  }

  @Test
  void call_leaseOrTtlBeyondTheMaximum_isRefusedBeforeTheBodyRuns() {
    assertThatThrownBy(() -> memory().call("jobs.long", String.class).key("k")
        .lease(ChronoUnit.CENTURIES.getDuration().multipliedBy(3)).run(() -> {
          runs.incrementAndGet();
          return "ran";
        })).isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("lease of jobs.long");
    assertThatThrownBy(() -> memory().call("jobs.long", String.class).key("k").ttl(ChronoUnit.FOREVER.getDuration())
        .run(() -> {
          runs.incrementAndGet();
          return "ran";
        })).isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("ttl of jobs.long");
    assertThat(runs).hasValue(0);
  }

  @Test
  void builder_defaultsOutOfBounds_areRefused() {
    assertThatThrownBy(() -> IdempotencyConfig.builder().defaultLease(Duration.ofMillis(5)))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("defaultLease");
    assertThatThrownBy(() -> IdempotencyConfig.builder().defaultTtl(ChronoUnit.FOREVER.getDuration()))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("defaultTtl");
    assertThatThrownBy(() -> IdempotencyConfig.builder().defaultWaitTimeout(Duration.ZERO))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("defaultWaitTimeout");
  }

  @Test
  void load_leasePropertyBelowTheMinimum_namesTheProperty() {
    assertThatThrownBy(() -> Idempotency.fromProperties(Map.of("idempotent.lease", "PT0.01S"), getClass().getClassLoader()))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("idempotent.lease")
        .hasMessageContaining("PT0.01S");
  }

  @Test
  void load_enabledNeitherTrueNorFalse_isAConfigurationErrorNamingTheValue() {
    for (String value : List.of("no", "0", "off", "yes")) {
      assertThatThrownBy(() -> Idempotency.fromProperties(Map.of("idempotent.enabled", value), getClass().getClassLoader()))
          .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("idempotent.enabled")
          .hasMessageContaining("'" + value + "'").hasMessageContaining("true or false");
    }
    assertThat(Idempotency.fromProperties(Map.of("idempotent.enabled", " FALSE "), getClass().getClassLoader())
        .enabled()).isFalse();
  }

  @Test
  void tokens_whileSwitchedOffWithNoStore_sayThatIdempotencyIsOff() {
    IdempotencyConfig off = Idempotency.fromProperties(Map.of("idempotent.enabled", "false"), getClass().getClassLoader());
    assertThatThrownBy(() -> Idempotency.create(off).tokens("checkout"))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("switched off")
        .hasMessageContaining("idempotent.enabled=false");
  }

  @Test
  void tokens_lifetimeBeyondTheMaximum_isRefused() {
    OneTimeTokens tokens = memory().tokens("form");
    assertThatThrownBy(() -> tokens.issue(ChronoUnit.FOREVER.getDuration()))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("lifetime of a token");
  }

  @Test
  void tokens_consumedLongLivedToken_staysAlreadyUsedForItsWholeLifetime() {
    ManualTimeSource ticker = new ManualTimeSource();
    OneTimeTokens tokens = Idempotency.create(IdempotencyConfig.builder()
        .store(new InMemoryTestStore(ticker, true)).build()).tokens("form");
    String token = tokens.issue(Duration.ofDays(30));
    tokens.consume(token);
    ticker.advance(Duration.ofDays(2));
    assertThatThrownBy(() -> tokens.consume(token)).isInstanceOf(IdempotencyTokenException.class)
        .extracting(e -> ((IdempotencyTokenException) e).reason())
        .isEqualTo(IdempotencyTokenException.Reason.ALREADY_USED);
  }

  @Test
  void validate_classCompiledWithoutParameterNames_saysNamesAreMissingAndHowToKeepThem() throws Exception {
    Path src = dir.resolve("src/demo/Orders.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, "package demo;\n"
        + "public class Orders {\n"
        + "  @io.idempotent.Idempotent(key = \"#orderId\")\n"
        + "  public String place(String orderId) { return orderId; }\n"
        + "}\n");
    Path out = dir.resolve("classes");
    Files.createDirectories(out);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    // no -parameters; -proc:none, or the @Idempotent check would refuse a class that no weaver sees
    int rc = javac.run(null, null, null, "-d", out.toString(), "-cp", System.getProperty("java.class.path"),
        "-proc:none", src.toString());
    assertThat(rc).isZero();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> orders = loader.loadClass("demo.Orders");
      assertThatThrownBy(() -> Idempotency.validate(orders))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("unknown parameter 'orderId'")
          .hasMessageContaining("compiled without parameter names")
          .hasMessageContaining("-parameters")
          .hasMessageContaining("#p0");
    }
  }
}
