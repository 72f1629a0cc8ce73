package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.spi.StoredOutcome;
import io.idempotent.testkit.InMemoryTestStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What the caller sees when the store fails to record an outcome after the method ran. */
class CompletionFailureTest {

  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();

  private Idempotency over(RuntimeException failure) {
    InMemoryTestStore store = new InMemoryTestStore() {
      @Override
      public synchronized boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
        throw failure;
      }
    };
    return Idempotency.create(IdempotencyConfig.builder().store(store).listener(e -> events.add(e.type())).build());
  }

  @Test
  void completeFails_independently_theResultStillReachesTheCaller() {
    Idempotency idempotency = over(new IdempotencyStoreException("connection reset"));
    assertThat(idempotency.call("c", String.class).key("k").run(() -> "ran")).isEqualTo("ran");
    assertThat(events).containsExactly(IdempotencyEvent.Type.STORE_ERROR);
  }

  @Test
  void completeFails_insideTheCallersTransaction_isThrownSoItRollsBack() {
    Idempotency idempotency = over(new IdempotencyRollbackRequiredException("claim lost", null));
    assertThatThrownBy(() -> idempotency.call("c", String.class).key("k").run(() -> "ran"))
        .isInstanceOf(IdempotencyRollbackRequiredException.class).hasMessage("claim lost");
    assertThat(events).containsExactly(IdempotencyEvent.Type.STORE_ERROR);
  }
}
