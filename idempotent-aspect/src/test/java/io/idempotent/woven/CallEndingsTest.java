package io.idempotent.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyResultException;
import io.idempotent.internal.JacksonResultCodec;
import io.idempotent.runtime.Idempotency;
import io.idempotent.spi.ResultCodec;
import java.lang.reflect.Type;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How calls end: re-entrant and interrupted waits, asynchronous shapes, and the outcome callers read. */
class CallEndingsTest {

  private final CallEndingsService service = new CallEndingsService();

  @AfterEach
  void tearDown() {
    service.proceed.countDown();
    Idempotency.uninstall();
  }

  @Test
  void waitPolicy_reentrantCallWithTheSameKey_isRefusedAtOnceWithoutWaiting() {
    Fixture.realTime(b -> {});
    long start = System.nanoTime();
    String result = service.reenter("o-1", false);
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(result).startsWith("inner refused: IdempotencyInProgressException").contains("from inside itself");
    assertThat(service.runs).hasValue(1);
    assertThat(waitedMillis).as("the waitTimeout is 30 s; a re-entrant call must not wait for itself")
        .isLessThan(10_000);
  }

  @Test
  void waitPolicy_interruptedWhileWaiting_throwsUncheckedAndKeepsTheInterruptFlag() throws Exception {
    Fixture f = Fixture.fakeTime();
    Thread first = new Thread(() -> {
      try {
        service.slow("o-2");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    first.start();
    assertThat(service.started.await(10, TimeUnit.SECONDS)).isTrue();

    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean flagAfter = new AtomicBoolean();
    Thread waiter = new Thread(() -> {
      try {
        service.slow("o-2");
      } catch (Throwable t) {
        thrown.set(t);
      }
      flagAfter.set(Thread.currentThread().isInterrupted());
    });
    waiter.start();
    assertThat(f.ticker.awaitParked(waiter)).as("it waits").isTrue();
    waiter.interrupt();
    waiter.join(10_000);

    assertThat(thrown.get()).isInstanceOf(IdempotencyInProgressException.class)
        .hasMessageContaining("Interrupted while waiting").hasMessageContaining("did not run")
        .hasCauseInstanceOf(InterruptedException.class);
    assertThat(flagAfter).isTrue();
    service.proceed.countDown();
    first.join(10_000);
    assertThat(service.runs).hasValue(1);
  }

  @Test
  void stageMethod_finalExceptionThrownAtOnce_looksTheSameOnFirstCallAndReplay() {
    Fixture.fakeTime();
    CompletionStage<String> first = service.declineAtOnce("o-3");
    CompletionStage<String> replay = service.declineAtOnce("o-3");

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs).hasValue(1);
    for (CompletionStage<String> stage : new CompletionStage[] {first, replay}) {
      assertThatThrownBy(() -> stage.toCompletableFuture().get())
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(Declined.class);
    }
  }

  @Test
  void stageMethod_returningNull_looksTheSameOnFirstCallAndReplay() throws Exception {
    Fixture.fakeTime();
    CompletableFuture<String> first = service.nullStage("o-4");
    CompletableFuture<String> replay = service.nullStage("o-4");

    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs).hasValue(1);
    assertThat(first).isNotNull();
    assertThat(replay).isNotNull();
    assertThat(first.get()).isNull();
    assertThat(replay.get()).isNull();
  }

  @Test
  void lastOutcome_resultThatCannotBeRecordedAfterANestedReplay_isExecuted() {
    Fixture.fakeTime(b -> b.codec(new RefusingCodec()));
    service.plain("nested-o-5"); // the nested call will replay this one
    assertThatThrownBy(() -> service.unencodable("o-5", service)).isInstanceOf(IdempotencyResultException.class);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
  }

  @Test
  void lastOutcome_keyExpressionThatThrows_isNullAndTheCauseIsKept() {
    Fixture.fakeTime();
    service.plain("o-6");
    service.plain("o-6");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);

    assertThatThrownBy(() -> service.keyOf(new CallEndingsService.Order(null)))
        .isInstanceOf(IdempotencyKeyException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThat(Idempotency.lastOutcome()).isNull();
    assertThat(service.runs).hasValue(1);
  }

  @Test
  void lastOutcome_annotationRefusedAtFirstCall_isNull() {
    Fixture.fakeTime();
    service.plain("o-7");
    service.plain("o-7");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);

    BadDurationsService bad = new BadDurationsService();
    assertThatThrownBy(() -> bad.tinyLease("o-7")).isInstanceOf(IdempotencyConfigurationException.class);
    assertThat(Idempotency.lastOutcome()).isNull();
  }

  @Test
  void validate_leasesAndTtlsOutOfBounds_areRefusedNamingTheMethodAndTheBounds() {
    assertThatThrownBy(() -> Idempotency.validate(BadDurationsService.class))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("lease of io.idempotent.woven.BadDurationsService.tinyLease(String) is PT0.005S")
        .hasMessageContaining("between PT1S and PT24H")
        .hasMessageContaining("centuryLease(String) is PT876000H")
        .hasMessageContaining("ttl of io.idempotent.woven.BadDurationsService.threeCenturyTtl(String)")
        .hasMessageContaining("at most PT87600H");
  }

  @Test
  void tinyLease_isRefusedBeforeTheMethodRuns() {
    Fixture.fakeTime();
    BadDurationsService bad = new BadDurationsService();
    assertThatThrownBy(() -> bad.tinyLease("o-8")).isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("renewed at a third");
  }

  /** Refuses to encode {@link CallEndingsService.Unencodable}; everything else goes to the default codec. */
  private static final class RefusingCodec implements ResultCodec {
    @Override
    public String encode(Object value, Type declaredType) {
      if (value instanceof CallEndingsService.Unencodable) {
        throw new IdempotencyResultException("refusing to encode " + declaredType.getTypeName(), null);
      }
      return JacksonResultCodec.shared().encode(value, declaredType);
    }

    @Override
    public Object decode(String data, Type declaredType) {
      return JacksonResultCodec.shared().decode(data, declaredType);
    }
  }
}
