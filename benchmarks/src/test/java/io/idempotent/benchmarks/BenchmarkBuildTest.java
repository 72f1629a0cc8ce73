package io.idempotent.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallOutcome;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The build both wove the business classes and ran JMH's generator over the benchmarks. */
class BenchmarkBuildTest {

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  @Test
  void annotatedMethods_areWoven() {
    for (Class<?> c : new Class<?>[] {Charges.class, Orders.class}) {
      assertThat(Arrays.stream(c.getDeclaredMethods()).map(Method::getName))
          .as(c.getSimpleName() + " woven by ajc").anyMatch(n -> n.contains("aroundBody"));
    }
    Idempotency.install(IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build());
    Charges charges = new Charges();
    Receipt first = charges.charge("woven-1", 5);
    Receipt again = charges.charge("woven-1", 5);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(again).isSameAs(first);
    assertThat(charges.executions.get()).isEqualTo(1);
  }

  @Test
  void benchmarkList_namesEveryScenario_andItsGeneratedClassesExist() throws IOException, ClassNotFoundException {
    String list;
    try (InputStream in = getClass().getResourceAsStream("/META-INF/BenchmarkList")) {
      assertThat(in).as("JMH's annotation processor wrote META-INF/BenchmarkList").isNotNull();
      list = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    for (String scenario : new String[] {"InMemoryBenchmark", "SqlBenchmark", "CommitCostBenchmark",
        "LayeredBenchmark", "ScalingBenchmark", "ContentionBenchmark", "PurgeBenchmark"}) {
      assertThat(list).contains("io.idempotent.benchmarks." + scenario);
    }
    assertThat(Class.forName("io.idempotent.benchmarks.jmh_generated.InMemoryBenchmark_firstCall_jmhTest")).isNotNull();
  }
}
