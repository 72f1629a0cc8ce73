package io.idempotent.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class TestServersTest {

  @Test
  void requireReachable_unreachableServer_skipsEveryTestButProbesOnce() {
    List<String> probes = new ArrayList<>();
    String server = "Nowhere " + UUID.randomUUID();
    for (int test = 0; test < 3; test++) {
      assertThatThrownBy(() -> TestServers.requireReachable(server, () -> {
        probes.add("probe");
        return "Nowhere is not reachable at 127.0.0.1:1.";
      }, false)).isInstanceOf(TestAbortedException.class).hasMessage("Skipped: Nowhere is not reachable at 127.0.0.1:1.");
    }
    assertThat(probes).hasSize(1);
  }

  @Test
  void requireReachable_unreachableServerWhenRequired_fails() {
    String server = "Nowhere " + UUID.randomUUID();
    assertThatThrownBy(() -> TestServers.requireReachable(server, () -> "Nowhere is down.", true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("Nowhere is down.")
        .hasMessageContaining("idempotent.requireServers=true");
  }

  @Test
  void requireReachable_reachableServer_letsTheTestRun() {
    String server = "Here " + UUID.randomUUID();
    TestServers.requireReachable(server, () -> "", true);
    assertThat(TestServers.problem(server, () -> "never probed again")).isEmpty();
  }
}
