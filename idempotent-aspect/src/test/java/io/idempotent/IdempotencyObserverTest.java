package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyObserver.ObservedCall;
import io.idempotent.IdempotencyObserver.Outcome;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ForwardingCallClaim;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import java.io.IOException;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The observer hook: one start and one end per call that reaches the engine, with how the call ended. */
class IdempotencyObserverTest {

  /** What the observer saw, in order: "start name store", "end OUTCOME [error class]", "detached". */
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private final List<Throwable> errors = new CopyOnWriteArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  private final IdempotencyObserver observer = (name, store) -> {
    seen.add("start " + name + " " + store);
    return new ObservedCall() {
      @Override
      public void end(Outcome outcome, Throwable error) {
        seen.add("end " + outcome + (error == null ? "" : " " + error.getClass().getSimpleName()));
        if (error != null) {
          errors.add(error);
        }
      }

      @Override
      public void detached() {
        seen.add("detached");
      }
    };
  };

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  private Idempotency idempotency(IdempotencyStore store) {
    return Idempotency.create(IdempotencyConfig.builder()
        .store("primary", store).defaultStore("primary").observer(observer).build());
  }

  private Idempotency idempotency() {
    return idempotency(new InMemoryTestStore(System::nanoTime, true));
  }

  @Test
  void observer_seesEachCallStartAndEnd_withHowItEnded() {
    Idempotency idempotency = idempotency();
    idempotency.call("mail", String.class).key("m-1").payload(1).run(() -> "sent");
    idempotency.call("mail", String.class).key("m-1").payload(1).run(() -> "sent again");
    assertThatThrownBy(() -> idempotency.call("mail", String.class).key("m-1").payload(2).run(() -> "other"))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThatThrownBy(() -> idempotency.call("mail", String.class).key(" ").run(() -> "no key"))
        .isInstanceOf(IdempotencyKeyException.class);
    IOException diskFull = new IOException("disk full");
    assertThatThrownBy(() -> idempotency.call("upload", String.class).key("f-1").run(() -> {
      throw diskFull;
    })).isSameAs(diskFull);

    assertThat(seen).containsExactly(
        "start mail primary", "end EXECUTED",
        "start mail primary", "end REPLAYED",
        "start mail primary", "end KEY_REUSED IdempotencyKeyReusedException",
        "start mail primary", "end KEY_MISSING IdempotencyKeyException",
        "start upload primary", "end FAILED IOException");
    assertThat(errors).last().isSameAs(diskFull);
  }

  @Test
  void observer_recordedFinalFailure_isReplayedWithItsError() {
    Idempotency idempotency = idempotency();
    assertThatThrownBy(() -> idempotency.call("pay", String.class).key("p-1").finalExceptions(IOException.class)
        .run(() -> {
          throw new IOException("declined");
        })).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> idempotency.call("pay", String.class).key("p-1").finalExceptions(IOException.class)
        .run(() -> "never runs")).isInstanceOf(IOException.class);
    assertThat(seen).containsExactly(
        "start pay primary", "end FAILED IOException", "start pay primary", "end REPLAYED IOException");
  }

  @Test
  void observer_keyInProgress_refusedSkippedAndWaited_andTheStageEndsWhenItCompletes() throws Exception {
    CountDownLatch waiting = new CountDownLatch(1);
    Idempotency idempotency = idempotency(new ForwardingIdempotencyStore(new InMemoryTestStore()) {
      @Override
      public Optional<IdempotencyRecord> find(String key) {
        waiting.countDown(); // only a waiting call looks the key up
        return super.find(key);
      }
    });
    Type stageOfString = IdempotencyObserverTest.class.getDeclaredMethod("stageShape").getGenericReturnType();
    CompletableFuture<String> gate = new CompletableFuture<>();
    CompletionStage<String> first = idempotency.<CompletionStage<String>>call("job", stageOfString).key("j-1")
        .run(() -> gate);
    assertThat(seen).containsExactly("start job primary", "detached");

    assertThatThrownBy(() -> idempotency.<CompletionStage<String>>call("job", stageOfString).key("j-1")
        .run(() -> gate)).isInstanceOf(IdempotencyInProgressException.class);
    CompletionStage<String> skipped = idempotency.<CompletionStage<String>>call("job", stageOfString).key("j-1")
        .onInProgress(OnInProgress.SKIP).run(() -> gate);
    assertThat(skipped.toCompletableFuture().get(5, TimeUnit.SECONDS)).isNull();
    Future<String> waiter = pool.submit(() -> idempotency.<CompletionStage<String>>call("job", stageOfString)
        .key("j-1").onInProgress(OnInProgress.WAIT).waitTimeout(Duration.ofSeconds(30)).run(() -> gate)
        .toCompletableFuture().get(30, TimeUnit.SECONDS));
    assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(seen).containsExactly("start job primary", "detached",
        "start job primary", "end IN_PROGRESS IdempotencyInProgressException",
        "start job primary", "end SKIPPED", "start job primary");

    gate.complete("done");
    assertThat(first.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(seen).hasSize(9).containsSubsequence("detached", "end EXECUTED", "end WAITED")
        .containsSubsequence("start job primary", "start job primary", "start job primary", "end WAITED");
  }

  @Test
  void observer_stageThatFails_endsFailedWithItsCause() throws Exception {
    Idempotency idempotency = idempotency();
    Type stageOfString = IdempotencyObserverTest.class.getDeclaredMethod("stageShape").getGenericReturnType();
    CompletableFuture<String> gate = new CompletableFuture<>();
    CompletionStage<String> first = idempotency.<CompletionStage<String>>call("job", stageOfString).key("j-2")
        .run(() -> gate);
    IllegalStateException broken = new IllegalStateException("broken");
    gate.completeExceptionally(broken);
    assertThat(first.toCompletableFuture()).isCompletedExceptionally();
    assertThat(seen).containsExactly("start job primary", "detached", "end FAILED IllegalStateException");
    assertThat(errors).containsExactly(broken);
  }

  /** A store whose {@code n}-th completion of a call (counting from 1) throws {@code failure}. */
  private static IdempotencyStore completionFailing(int n, RuntimeException failure) {
    AtomicInteger completions = new AtomicInteger();
    return new ForwardingIdempotencyStore(new InMemoryTestStore()) {
      @Override
      protected CallClaim forward(CallClaim claim) {
        return new ForwardingCallClaim(claim) {
          @Override
          public boolean complete(StoredOutcome outcome, Duration ttl) {
            if (completions.incrementAndGet() == n) {
              throw failure;
            }
            return super.complete(outcome, ttl);
          }
        };
      }
    };
  }

  @Test
  void observer_storeFailing_beforeOrAfterTheMethodRan_isAStoreError() {
    InMemoryTestStore failingClaims = new InMemoryTestStore(System::nanoTime, true);
    failingClaims.failing(true);
    assertThatThrownBy(() -> idempotency(failingClaims).call("mail", String.class).key("m-1").run(() -> "sent"))
        .isInstanceOf(IdempotencyStoreException.class);

    IllegalStateException down = new IllegalStateException("store down");
    IdempotencyStore failingCompletions = completionFailing(1, down);
    assertThat(idempotency(failingCompletions).call("mail", String.class).key("m-2").run(() -> "sent"))
        .isEqualTo("sent");

    assertThat(seen).containsExactly(
        "start mail primary", "end STORE_ERROR IdempotencyStoreException",
        "start mail primary", "end STORE_ERROR IllegalStateException");
    assertThat(errors).last().isSameAs(down);
  }

  @Test
  void observer_nestedCalls_eachEndWithTheirOwnOutcome() {
    Idempotency idempotency = idempotency();
    idempotency.call("inner", String.class).key("i-1").run(() -> "inner");
    String outer = idempotency.call("outer", String.class).key("o-1").run(() -> {
      idempotency.call("inner", String.class).key("i-1").run(() -> "inner again"); // a replay inside
      return "outer";
    });
    assertThat(outer).isEqualTo("outer");
    assertThat(seen).containsExactly(
        "start inner primary", "end EXECUTED",
        "start outer primary", "start inner primary", "end REPLAYED", "end EXECUTED");
  }

  @Test
  void observer_storeFailingForTheOuterCall_afterANestedCallReturned_isTheOuterCallsStoreError() {
    // the second completion is the outer call's: the inner one completed first
    Idempotency idempotency = idempotency(completionFailing(2, new IllegalStateException("store down")));
    idempotency.call("inner", String.class).key("i-1").run(() -> "inner");
    String outer = idempotency.call("outer", String.class).key("o-1").run(() -> {
      idempotency.call("inner", String.class).key("i-1").run(() -> "inner again");
      return "outer";
    });
    assertThat(outer).isEqualTo("outer");
    assertThat(seen).containsExactly(
        "start inner primary", "end EXECUTED",
        "start outer primary", "start inner primary", "end REPLAYED", "end STORE_ERROR IllegalStateException");
  }

  @Test
  void observer_thatThrows_changesNothingAboutTheCall() {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(new InMemoryTestStore())
        .observer((name, store) -> {
          throw new IllegalStateException("observer broken");
        })
        .build());
    assertThat(idempotency.call("mail", String.class).key("m-1").run(() -> "sent")).isEqualTo("sent");
    assertThat(idempotency.call("mail", String.class).key("m-1").run(() -> "again")).isEqualTo("sent");

    Idempotency endThrows = Idempotency.create(IdempotencyConfig.builder()
        .store(new InMemoryTestStore())
        .observer((name, store) -> (outcome, error) -> {
          throw new IllegalStateException("observer broken");
        })
        .build());
    assertThat(endThrows.call("mail", String.class).key("m-1").run(() -> "sent")).isEqualTo("sent");
    assertThat(endThrows.call("mail", String.class).key("m-1").execute(() -> "again").replayed()).isTrue();
  }

  @Test
  void observer_switchedOff_isNeverStarted() {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(new InMemoryTestStore()).enabled(false).observer(observer).build());
    assertThat(idempotency.call("mail", String.class).key("m-1").run(() -> "sent")).isEqualTo("sent");
    assertThat(seen).isEmpty();
  }

  @Test
  void config_toBuilder_keepsTheObserver() {
    IdempotencyConfig config = IdempotencyConfig.builder().store(new InMemoryTestStore()).observer(observer).build();
    assertThat(config.observer()).isSameAs(observer);
    assertThat(config.toBuilder().build().observer()).isSameAs(observer);
    assertThat(IdempotencyConfig.builder().store(new InMemoryTestStore()).build().observer()).isNull();
  }

  /** Gives its generic return type to the programmatic calls above. */
  @SuppressWarnings("unused")
  private static CompletionStage<String> stageShape() {
    return null;
  }
}
