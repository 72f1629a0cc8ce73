package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile key values through a woven method on every store: unicode, control characters, quotes, SQL
 * fragments, 100 kB keys, null and blank parts. Each key runs once even when its duplicates arrive
 * together, replays exactly its own result, and is never taken for another key.
 */
class HostileInputTest {

  private final EventCounter events = new EventCounter();
  private final HostileInputService service = new HostileInputService();

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  private StoreKind.Opened install(StoreKind kind) {
    StoreKind.Opened opened = kind.open();
    Idempotency.install(IdempotencyConfig.builder().store(opened.store()).listener(events).build());
    return opened;
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.StoreKind#all")
  void hostileKeys_sentConcurrently_runOnceEach_andReplayOnlyTheirOwnResult(StoreKind kind) throws Exception {
    try (StoreKind.Opened opened = install(kind)) {
      String run = Calls.newRun();
      List<String> keys = HostileKeys.all();
      int threads = 4;
      Calls.Sent sent = Calls.sendConcurrently(keys.size(), threads, threads, 42, i -> {
        String expected = i + "|" + keys.get(i);
        String actual = service.echo(run, keys.get(i), i);
        return expected.equals(actual) ? null
            : "key #" + i + " " + Calls.printable(keys.get(i)) + " gave " + Calls.printable(actual);
      });
      assertThat(sent.mismatches()).isEmpty();
      assertThat(service.runs).as("one execution per key").hasValue(keys.size());

      List<String> lost = new ArrayList<>(); // keys whose own result is not replayed
      for (int i = 0; i < keys.size(); i++) {
        String replayed = service.echo(run, keys.get(i), i);
        if (!replayed.equals(i + "|" + keys.get(i)) || Idempotency.lastOutcome() != CallOutcome.REPLAYED) {
          lost.add("key #" + i + " " + Calls.printable(keys.get(i)) + " gave " + Calls.printable(replayed));
        }
      }
      for (int i = 0; i < keys.size(); i++) {
        int other = i + 1;
        String key = keys.get(i);
        assertThatThrownBy(() -> service.echo(run, key, other))
            .as("key #%d with other arguments", i)
            .isInstanceOf(IdempotencyKeyReusedException.class);
      }
      int duplicated = service.runs.get() - keys.size();

      Figures.of("HostileInputTest.hostileKeys[" + kind + "]")
          .set("threads", threads)
          .set("keys", keys.size())
          .set("duplicatesSent", (threads - 1L) * keys.size() + 2L * keys.size())
          .set("refusedInProgress", sent.refusedInProgress())
          .set("executions", service.runs.get())
          .set("badInputs", keys.size())
          .set("lost", lost.size())
          .set("duplicated", duplicated)
          .report();
      assertThat(lost).as("lost").isEmpty();
      assertThat(duplicated).as("duplicated").isZero();
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.reliability.StoreKind#all")
  void nullAndBlankKeyParts_areRefused_andNeverTakenForTheirText(StoreKind kind) {
    try (StoreKind.Opened opened = install(kind)) {
      String run = Calls.newRun();
      List<ThrowingCallable> refused = List.of(
          () -> service.echo(run, null, 0),
          () -> service.echo(run, "", 0),
          () -> service.echo(run, "   ", 0),
          () -> service.echo(run, "\t\n\u2028", 0),
          () -> service.echo(null, "k", 0),
          () -> service.echo(" ", "k", 0),
          () -> service.concat(run, null, "x"),
          () -> service.concat(run, "a", null),
          () -> service.concat(run, null, null),
          () -> service.placeOrder(null, "o-1"),
          () -> service.placeOrder("", "o-1"));
      for (ThrowingCallable call : refused) {
        assertThatThrownBy(call).isInstanceOf(IdempotencyKeyException.class);
      }
      assertThat(service.runs).as("nothing ran").hasValue(0);
      assertThat(events.count(IdempotencyEvent.Type.KEY_MISSING)).isEqualTo(refused.size());

      // the text "null" is an ordinary key, not the missing one
      assertThat(service.concat(run, "null", "x")).isEqualTo("null/x");
      assertThat(service.concat(run, "a", "null")).isEqualTo("a/null");
      assertThat(service.echo(run, "null", 0)).isEqualTo("0|null");
      assertThat(service.placeOrder("null", run)).isEqualTo("null#" + run);
      assertThat(service.runs).hasValue(4);

      // sent again, each replays its own result and runs nothing
      Map<String, Supplier<String>> again = new LinkedHashMap<>();
      again.put("null/x", () -> service.concat(run, "null", "x"));
      again.put("a/null", () -> service.concat(run, "a", "null"));
      again.put("0|null", () -> service.echo(run, "null", 0));
      again.put("null#" + run, () -> service.placeOrder("null", run));
      int lost = 0;
      for (Map.Entry<String, Supplier<String>> call : again.entrySet()) {
        if (!call.getValue().get().equals(call.getKey()) || Idempotency.lastOutcome() != CallOutcome.REPLAYED) {
          lost++;
        }
      }
      int duplicated = service.runs.get() - again.size();

      Figures.of("HostileInputTest.nullAndBlankParts[" + kind + "]")
          .set("keys", again.size())
          .set("duplicatesSent", again.size())
          .set("executions", service.runs.get())
          .set("badInputs", refused.size())
          .set("lost", lost)
          .set("duplicated", duplicated)
          .report();
      assertThat(lost).as("lost").isZero();
      assertThat(duplicated).as("duplicated").isZero();
    }
  }
}
