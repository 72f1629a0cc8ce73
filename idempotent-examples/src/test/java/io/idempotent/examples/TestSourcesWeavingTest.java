package io.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallOutcome;
import io.idempotent.Idempotent;
import io.idempotent.runtime.Idempotency;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The README's plugin snippet weaves test sources too (its {@code test-compile} goal), so a test can
 * annotate a method of its own, here on the demo's store.
 */
class TestSourcesWeavingTest {

  private final AtomicInteger runs = new AtomicInteger();

  @Idempotent(name = "test.weaving", key = "#id")
  String handle(String id) {
    runs.incrementAndGet();
    return "handled " + id;
  }

  @Test
  void annotatedTestMethod_calledTwice_runsOnce() {
    try (DemoEnvironment env = DemoEnvironment.open(TestDatabases.freshH2())) {
      assertThat(handle("a")).isEqualTo("handled a");
      assertThat(handle("a")).isEqualTo("handled a");
      assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
      assertThat(runs).hasValue(1);
      assertThat(env.liveRecords()).isEqualTo(1);
    }
  }
}
