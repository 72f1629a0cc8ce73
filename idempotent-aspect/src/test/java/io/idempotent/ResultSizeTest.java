package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.internal.JacksonResultCodec;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.IdempotentCall;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What is recorded can be read back: a result beyond the maximum size is refused when the call completes. */
class ResultSizeTest {

  private final Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
      .store(new InMemoryTestStore(System::nanoTime, true)).build());
  private final AtomicInteger runs = new AtomicInteger();

  @SuppressWarnings("unchecked")
  private IdempotentCall<List<String>> call() {
    return (IdempotentCall<List<String>>) (IdempotentCall<?>) idempotency.call("reports.render", List.class).key("r-1");
  }

  @Test
  void run_resultBeyondTheMaximum_isRefusedAtTheFirstCallAndTheKeyIsReleased() {
    List<String> huge = new ArrayList<>(List.of("x".repeat(JacksonResultCodec.MAX_RESULT_CHARS)));
    assertThatThrownBy(() -> call().run(() -> {
      runs.incrementAndGet();
      return huge;
    })).isInstanceOf(IdempotencyResultException.class)
        .hasMessageContaining("more than the " + JacksonResultCodec.MAX_RESULT_CHARS);

    List<String> small = new ArrayList<>(List.of("ok"));
    assertThat(call().run(() -> {
      runs.incrementAndGet();
      return small;
    })).as("the key was released, not stuck for the TTL").isEqualTo(small);
    assertThat(runs).hasValue(2);
  }

  @Test
  void run_resultJustWithinTheMaximum_replays() {
    String text = "y".repeat(JacksonResultCodec.MAX_RESULT_CHARS - 10);
    for (int i = 0; i < 2; i++) {
      List<String> r = call().run(() -> {
        runs.incrementAndGet();
        return new ArrayList<>(List.of(text));
      });
      assertThat(r).containsExactly(text);
    }
    assertThat(runs).hasValue(1);
  }
}
