package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.internal.JacksonResultCodec;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A final failure that a replay could not read back is not recorded and leaves the key free for a retry at
 * once (one the store fails to record is recorded later: {@code CompletionFailureTest}).
 */
class FinalFailureRecordingTest {

  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger runs = new AtomicInteger();

  private Idempotency on(InMemoryTestStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).listener(e -> events.add(e.type())).build());
  }

  private void decline(Idempotency idempotency, String message) {
    idempotency.call("cards.charge", String.class).key("c-1").lease(Duration.ofMinutes(5))
        .finalExceptions(IllegalStateException.class).run(() -> {
          runs.incrementAndGet();
          throw new IllegalStateException(message);
        });
  }

  @Test
  void finalFailureLargerThanARecordMayBe_isNotRecorded_andTheKeyIsReleased() {
    Idempotency idempotency = on(new InMemoryTestStore(System::nanoTime, true));
    String huge = "declined ".repeat(JacksonResultCodec.MAX_RESULT_CHARS / 9 + 1);
    assertThatThrownBy(() -> decline(idempotency, huge)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> decline(idempotency, "declined")).isInstanceOf(IllegalStateException.class);
    assertThat(runs).as("the retry ran: nothing unreadable was recorded").hasValue(2);
    assertThat(events).contains(IdempotencyEvent.Type.RELEASED_ON_FAILURE, IdempotencyEvent.Type.FAILURE_STORED);
  }
}
