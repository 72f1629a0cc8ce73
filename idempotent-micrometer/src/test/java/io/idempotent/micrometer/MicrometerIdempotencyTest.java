package io.idempotent.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.ManualTimeSource;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.CallScopedClaims;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Meters of real woven calls on the Caffeine store, one test (or more) per outcome, with a fake ticker
 * where a lease has to run out.
 */
class MicrometerIdempotencyTest {

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final ManualTimeSource ticker = new ManualTimeSource();
  private final Orders orders = new Orders();
  private final ExecutorService pool = Executors.newCachedThreadPool();
  /** While true, the default store's claims fail as if it were unreachable. */
  private final AtomicBoolean claimsFail = new AtomicBoolean();
  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    orders.proceed.countDown();
    pool.shutdownNow();
    Idempotency.uninstall();
  }

  private void install() {
    install(b -> {});
  }

  private void install(Consumer<IdempotencyConfig.Builder> custom) {
    install(custom, MicrometerIdempotency.builder().meterRegistry(meters).build());
  }

  /**
   * Installs the Caffeine store on the fake ticker, standing for a store across the network (one that can
   * be unreachable), and a second Caffeine store, "fast", as it is; instrumented with {@code binder}.
   */
  private void install(Consumer<IdempotencyConfig.Builder> custom, MicrometerIdempotency binder) {
    IdempotencyStore caffeine = CaffeineIdempotencyStore.builder().ticker(ticker::read).build();
    IdempotencyStore store = new ForwardingIdempotencyStore(caffeine) {
      @Override
      public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease,
          io.idempotent.Effects effects) {
        if (claimsFail.get()) {
          throw new IllegalStateException("store unreachable (simulated)");
        }
        return super.claimForCall(key, fingerprint, owner, lease, effects);
      }
    };
    IdempotencyConfig.Builder b = IdempotencyConfig.builder()
        .store(store)
        .store("fast", CaffeineIdempotencyStore.builder().ticker(ticker::read).build())
        .listener(events::add);
    custom.accept(b);
    Idempotency.install(binder.instrument(b.build()));
  }

  /** How many calls of {@code name} on the default store ended with {@code outcome}. */
  private long calls(String name, String outcome) {
    Timer timer = meters.find(MicrometerIdempotency.CALLS)
        .tags("name", name, "store", "default", "outcome", outcome).timer();
    return timer == null ? 0 : timer.count();
  }

  private long storeOperations(String store, String operation, String outcome) {
    Timer timer = meters.find(MicrometerIdempotency.STORE_OPERATIONS)
        .tags("store", store, "operation", operation, "outcome", outcome).timer();
    return timer == null ? 0 : timer.count();
  }

  private double counter(String meter, String name) {
    var counter = meters.find(meter).tag("name", name).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void calls_executedThenReplayed_areTimedByNameStoreAndOutcome() {
    install();
    orders.place("o-1", 100);
    orders.place("o-1", 100);
    assertThat(calls(Orders.PLACE, "executed")).isEqualTo(1);
    assertThat(calls(Orders.PLACE, "replayed")).isEqualTo(1);
    assertThat(meters.get(MicrometerIdempotency.CALLS).tag("outcome", "executed").timer()
        .totalTime(TimeUnit.NANOSECONDS)).isPositive();
    assertThat(orders.runs).hasValue(1);
  }

  @Test
  void calls_sameKeyWithOtherArguments_isKeyReused() {
    install();
    orders.place("o-1", 100);
    assertThatThrownBy(() -> orders.place("o-1", 200)).isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(calls(Orders.PLACE, "key_reused")).isEqualTo(1);
  }

  @Test
  void calls_nullOrBlankKey_isKeyMissing() {
    install();
    assertThatThrownBy(() -> orders.place(null, 100)).isInstanceOf(IdempotencyKeyException.class);
    assertThatThrownBy(() -> orders.place(" ", 100)).isInstanceOf(IdempotencyKeyException.class);
    assertThat(calls(Orders.PLACE, "key_missing")).isEqualTo(2);
    assertThat(orders.runs).hasValue(0);
  }

  @Test
  void calls_methodThatThrows_isFailed_andItsClaimReleased() {
    install();
    assertThatThrownBy(() -> orders.decline("o-1")).isInstanceOf(IllegalStateException.class);
    assertThat(calls("orders.decline", "failed")).isEqualTo(1);
    assertThat(storeOperations("default", "release", "success")).isEqualTo(1);
  }

  @Test
  void calls_storeFailing_isStoreError_andTheFailedOperationIsTimedAsAnError() {
    install();
    claimsFail.set(true);
    assertThatThrownBy(() -> orders.place("o-1", 100)).isInstanceOf(IdempotencyStoreException.class);
    assertThat(calls(Orders.PLACE, "store_error")).isEqualTo(1);
    assertThat(storeOperations("default", "claim", "error")).isEqualTo(1);
    assertThat(orders.runs).hasValue(0);
  }

  @Test
  void calls_duplicatesWhileTheFirstRuns_areInProgressSkippedAndWaited() throws Exception {
    install();
    Future<String> first = pool.submit(() -> orders.slow("o-1"));
    assertThat(orders.started.await(30, TimeUnit.SECONDS)).isTrue();

    assertThatThrownBy(() -> orders.slow("o-1")).isInstanceOf(IdempotencyInProgressException.class);
    assertThat(orders.slowOrSkip("o-1")).isNull();
    Future<String> waiter = pool.submit(() -> orders.slowOrWait("o-1"));
    // the waiter polls the key (the Caffeine store gives no change signal) once its claim found it taken
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (storeOperations("default", "find", "success") == 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(storeOperations("default", "find", "success")).isPositive();
    assertThat(waiter).isNotDone();

    orders.proceed.countDown();
    assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("slow o-1");
    assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo("slow o-1");
    assertThat(calls(Orders.SLOW, "in_progress")).isEqualTo(1);
    assertThat(calls(Orders.SLOW, "skipped")).isEqualTo(1);
    assertThat(calls(Orders.SLOW, "waited")).isEqualTo(1);
    assertThat(calls(Orders.SLOW, "executed")).isEqualTo(1);
    assertThat(calls(Orders.SLOW, "replayed")).isZero();
    assertThat(orders.runs).hasValue(1);
  }

  @Test
  void leases_takenOverAfterTheyRanOut_andLostByTheirFirstOwner_areCounted() throws Exception {
    install(b -> b.defaultLease(Duration.ofSeconds(1)).leaseRenewal(false));
    Future<String> first = pool.submit(() -> orders.slow("o-1"));
    assertThat(orders.started.await(30, TimeUnit.SECONDS)).isTrue();
    ticker.advance(Duration.ofSeconds(2)); // the first owner's lease runs out while it still runs

    assertThat(orders.slowOrSkip("o-1")).isEqualTo("slow o-1"); // not skipped: the expired claim is taken over
    orders.proceed.countDown();
    assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("slow o-1"); // its completion is fenced off

    assertThat(counter(MicrometerIdempotency.LEASE_TAKEOVERS, Orders.SLOW)).isEqualTo(1);
    assertThat(counter(MicrometerIdempotency.LEASES_LOST, Orders.SLOW)).isEqualTo(1);
    assertThat(calls(Orders.SLOW, "executed")).isEqualTo(2);
    assertThat(events).extracting(IdempotencyEvent::type)
        .contains(IdempotencyEvent.Type.LEASE_TAKEN_OVER, IdempotencyEvent.Type.LEASE_LOST);
  }

  @Test
  void meters_doNotGrowWithTheNumberOfKeys() {
    install();
    orders.place("o-first", 100);
    orders.place("o-first", 100);
    int metersAfterTheFirstKey = meters.getMeters().size();
    for (int i = 0; i < 2_000; i++) {
      orders.place("o-" + i, i);
      orders.place("o-" + i, i);
    }
    assertThat(meters.getMeters()).hasSize(metersAfterTheFirstKey);
    assertThat(calls(Orders.PLACE, "executed")).isEqualTo(2_001);
    assertThat(calls(Orders.PLACE, "replayed")).isEqualTo(2_001);
    for (Meter meter : meters.getMeters()) {
      assertThat(meter.getId().getTags()).extracting(Tag::getValue)
          .as("tags of %s", meter.getId()).noneMatch(value -> value.startsWith("o-"));
    }
  }

  @Test
  void storeOperations_eachPrimitive_isTimedByStoreAndOperation() {
    install();
    orders.place("o-1", 100);
    orders.place("o-1", 100);
    assertThat(storeOperations("default", "claim", "success")).isEqualTo(2);
    assertThat(storeOperations("default", "complete", "success")).isEqualTo(1);

    IdempotencyStore store = Idempotency.global().config().store("default");
    assertThat(store.claim("k", "", "owner", Duration.ofSeconds(5)).claimed()).isTrue();
    assertThat(store.renew("k", "owner", Duration.ofSeconds(5))).isTrue();
    assertThat(store.find("k")).isPresent();
    assertThat(store.release("k", "owner")).isTrue();
    CallClaim call = ((CallScopedClaims) store).claimForCall("k", "", "owner-2", Duration.ofSeconds(5),
        io.idempotent.Effects.EXTERNAL);
    assertThat(call.completeDetached(StoredOutcome.nullValue(), Duration.ofSeconds(5))).isTrue();
    store.purgeExpired(10);
    for (String operation : List.of("renew", "find", "release", "complete_detached", "purge_expired")) {
      assertThat(storeOperations("default", operation, "success")).as(operation).isEqualTo(1);
    }
    assertThat(meters.find(MicrometerIdempotency.STORE_OPERATIONS).tag("outcome", "error").timers()).isEmpty();
  }

  @Test
  void storeOperations_leftOut_leaveTheStoresAsTheyAre_andTheCallsTimed() {
    // not an InMemoryStore: a store whose operations would be timed by default
    IdempotencyStore store = new ForwardingIdempotencyStore(CaffeineIdempotencyStore.builder().build()) {};
    Idempotency.install(MicrometerIdempotency.builder().meterRegistry(meters).storeOperations(false).build()
        .instrument(IdempotencyConfig.builder().store(store).build()));
    orders.place("o-1", 100);
    orders.place("o-1", 100);
    assertThat(Idempotency.global().config().store("default")).isSameAs(store);
    assertThat(meters.find(MicrometerIdempotency.STORE_OPERATIONS).meters()).isEmpty();
    assertThat(calls(Orders.PLACE, "executed")).isEqualTo(1);
    assertThat(calls(Orders.PLACE, "replayed")).isEqualTo(1);
  }

  @Test
  void calls_onANamedStore_areTaggedWithItsName_soAreItsOperationsWhenTimed() {
    install(b -> {}, MicrometerIdempotency.builder().meterRegistry(meters).storeOperations(true).build());
    orders.onTheFastStore("o-1");
    assertThat(meters.get(MicrometerIdempotency.CALLS).tags("name", "orders.fast", "store", "fast",
        "outcome", "executed").timer().count()).isEqualTo(1);
    assertThat(storeOperations("fast", "claim", "success")).isEqualTo(1);
    assertThat(storeOperations("default", "claim", "success")).isZero();
  }

  @Test
  void storeOperations_byDefault_areTimedOnStoresThatLeaveTheProcess_notOnInMemoryOnes() {
    IdempotencyStore fast = CaffeineIdempotencyStore.builder().build();
    install(b -> b.store("fast", fast));
    orders.place("o-1", 100);
    orders.onTheFastStore("o-1");
    assertThat(storeOperations("default", "claim", "success")).isEqualTo(1);
    assertThat(storeOperations("default", "complete", "success")).isEqualTo(1);
    assertThat(Idempotency.global().config().store("fast")).as("the in-memory store, not wrapped").isSameAs(fast);
    assertThat(meters.find(MicrometerIdempotency.STORE_OPERATIONS).tag("store", "fast").meters()).isEmpty();
    assertThat(meters.get(MicrometerIdempotency.CALLS).tags("store", "fast", "outcome", "executed").timer().count())
        .as("its calls are timed all the same").isEqualTo(1);
  }

  @Test
  void instrument_keepsTheConfigurationsOwnListener_andRefusesToInstrumentTwice() {
    install();
    orders.place("o-1", 100);
    assertThat(events).extracting(IdempotencyEvent::type).containsExactly(IdempotencyEvent.Type.EXECUTED);
    IdempotencyConfig instrumented = Idempotency.global().config();
    assertThatThrownBy(() -> MicrometerIdempotency.instrument(instrumented, meters))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only once");
    assertThatThrownBy(() -> MicrometerIdempotency.builder().build()).isInstanceOf(IllegalStateException.class);
  }
}
