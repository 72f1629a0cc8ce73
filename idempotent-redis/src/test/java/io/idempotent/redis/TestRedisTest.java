package io.idempotent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.testkit.TestServers;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** The test support itself: a Redis nobody listens on skips its tests, or fails them when servers are required. */
class TestRedisTest {

  @Test
  void requireReachable_closedPort_skipsWithTheAddress() {
    assertThat(TestRedis.problem("127.0.0.1", 1)).contains("127.0.0.1:1");
    assertThatThrownBy(() -> TestServers.requireReachable("Redis 127.0.0.1:1 (skip)",
        () -> TestRedis.problem("127.0.0.1", 1), false))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageStartingWith("Skipped: Redis is not reachable at 127.0.0.1:1");
  }

  @Test
  void requireReachable_closedPortWhenServersAreRequired_fails() {
    assertThatThrownBy(() -> TestServers.requireReachable("Redis 127.0.0.1:1 (fail)",
        () -> TestRedis.problem("127.0.0.1", 1), true))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("127.0.0.1:1")
        .hasMessageContaining("idempotent.requireServers=true");
  }
}
