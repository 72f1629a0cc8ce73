package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.internal.StoredKeys;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.ResultCodec;
import io.idempotent.spi.StoredOutcome;
import io.idempotent.woven.PaymentRefusals;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What cannot come back as it was is refused before the method runs, or not recorded at all. */
class ReplayFidelityTest {

  private final InMemoryTestStore store = new InMemoryTestStore(System::nanoTime, true);
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();
  private final Idempotency idempotency =
      Idempotency.create(IdempotencyConfig.builder().store(store).listener(events::add).build());
  private final AtomicInteger runs = new AtomicInteger();

  interface Priced {
    long cents();
  }

  record Item(long cents) implements Priced {}

  /** Keeps the moment it was made: no constructor gives the same value back. */
  static class Stamped extends RuntimeException {
    private final long madeAt = System.nanoTime();

    Stamped(String message) {
      super(message);
    }
  }

  /** A constructor a replay cannot feed: its parameters are neither fields nor a message. */
  static class Opaque extends RuntimeException {
    Opaque(int a, int b) {
      super("opaque " + (a + b));
    }
  }

  abstract static class PaymentProblem extends RuntimeException {
    PaymentProblem(String message) {
      super(message);
    }
  }

  static final class Fraud extends PaymentProblem {
    private final String rule;

    Fraud(String rule) {
      super("fraud rule " + rule);
      this.rule = rule;
    }
  }

  /** Carries details keyed by text, which may hold a lone surrogate. */
  static final class Declined extends RuntimeException {
    private final java.util.Map<String, String> details;

    Declined(java.util.Map<String, String> details) {
      super("declined");
      this.details = details;
    }
  }

  static CompletionStage<Priced> stageOfPriced;

  @Test
  void run_resultTypeThatCannotBeDecoded_isRefusedBeforeTheBodyRuns() {
    assertThatThrownBy(() -> idempotency.call("prices.quote", Priced.class).key("k").run(() -> {
      runs.incrementAndGet();
      return new Item(5);
    }))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("prices.quote")
        .hasMessageContaining(Priced.class.getTypeName())
        .hasMessageContaining("abstract or an interface");
    assertThat(runs).hasValue(0);
  }

  @Test
  void run_stageOfUndecodableValue_isRefusedBeforeTheBodyRuns() throws Exception {
    Type stage = ReplayFidelityTest.class.getDeclaredField("stageOfPriced").getGenericType();
    assertThatThrownBy(() -> idempotency.<CompletionStage<Priced>>call("prices.later", stage).key("k").run(() -> {
      runs.incrementAndGet();
      return null;
    })).isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("prices.later");
    assertThat(runs).hasValue(0);
  }

  @Test
  void run_customCodecWithoutCheck_keepsItsOwnBehaviour() {
    ResultCodec plain = new ResultCodec() {
      @Override
      public String encode(Object value, Type declaredType) {
        return Long.toString(((Priced) value).cents());
      }

      @Override
      public Object decode(String data, Type declaredType) {
        return new Item(Long.parseLong(data));
      }
    };
    Idempotency custom = Idempotency.create(IdempotencyConfig.builder().store(store).codec(plain).build());
    custom.call("prices.custom", Priced.class).key("k").run(() -> new Item(7));
    assertThat(custom.call("prices.custom", Priced.class).key("k").run(() -> new Item(8))).isEqualTo(new Item(7));
  }

  @Test
  void run_finalExceptionWithAMapKeyHoldingALoneSurrogate_replaysIt() {
    java.util.Map<String, String> details = java.util.Map.of("k\uDC00", "v\uD800");
    for (int i = 0; i < 2; i++) {
      Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> idempotency.call("declines", String.class)
          .key("k").finalExceptions(Declined.class).run(() -> {
            runs.incrementAndGet();
            throw new Declined(details);
          }));
      assertThat(thrown).isExactlyInstanceOf(Declined.class);
      assertThat(((Declined) thrown).details).isEqualTo(details);
    }
    assertThat(runs).as("the second call replays").hasValue(1);
  }

  @Test
  void run_finalExceptionThatWouldNotComeBackFaithfully_isNotRecorded_andTheKeyIsReleased() {
    Stamped first = new Stamped("stamped");
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> idempotency.call("stamps", String.class).key("k").finalExceptions(Stamped.class)
          .run(() -> {
            runs.incrementAndGet();
            throw first;
          })).isSameAs(first);
    }
    assertThat(runs).as("a retry runs the method again").hasValue(2);
    assertThat(events).extracting(IdempotencyEvent::type)
        .containsExactly(IdempotencyEvent.Type.RELEASED_ON_FAILURE, IdempotencyEvent.Type.RELEASED_ON_FAILURE);
  }

  @Test
  void run_declaredFinalTypeWithoutUsableConstructor_isRefusedBeforeTheBodyRuns() {
    assertThatThrownBy(() -> idempotency.call("opaque", String.class).key("k").finalExceptions(Opaque.class)
        .run(() -> {
          runs.incrementAndGet();
          return "ran";
        }))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("finalExceptions = " + Opaque.class.getName())
        .hasMessageContaining("opaque")
        .hasMessageContaining("no constructor");
    assertThat(runs).hasValue(0);
  }

  @Test
  void run_abstractDeclaredFinalType_replaysItsConcreteSubclass() {
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> idempotency.call("payments", String.class).key("k")
          .finalExceptions(PaymentProblem.class)
          .run(() -> {
            runs.incrementAndGet();
            throw new Fraud("velocity");
          }))
          .isExactlyInstanceOf(Fraud.class).hasMessage("fraud rule velocity")
          .satisfies(e -> assertThat(((Fraud) e).rule).isEqualTo("velocity"));
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void run_subclassOfDeclaredJdkException_replays() {
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> idempotency.call("coupons", String.class).key("k")
          .finalExceptions(RuntimeException.class)
          .run(() -> {
            runs.incrementAndGet();
            throw new PaymentRefusals.InvalidCoupon("coupon SPRING expired");
          })).isExactlyInstanceOf(PaymentRefusals.InvalidCoupon.class).hasMessage("coupon SPRING expired");
    }
    assertThat(runs).hasValue(1);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
  }

  @Test
  void run_failureRecordedWithoutState_replaysByItsMessage() {
    String key = StoredKeys.compose("older", null, "k", store.keyRules());
    store.claim(key, "", "someone", Duration.ofMinutes(1));
    store.complete(key, "someone", StoredOutcome.failure(IllegalStateException.class.getName(), "was closed"),
        Duration.ofMinutes(1));
    assertThatThrownBy(() -> idempotency.call("older", String.class).key("k")
        .finalExceptions(IllegalStateException.class).run(() -> "ran"))
        .isExactlyInstanceOf(IllegalStateException.class).hasMessage("was closed");
  }
}
