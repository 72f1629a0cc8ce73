package io.idempotent.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.idempotent.BatchResult;
import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.Effects;
import io.idempotent.IdempotencyResultException;
import io.idempotent.IdempotencyTokenException;
import io.idempotent.OnInProgress;
import io.idempotent.Settlement;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.IdempotentBatch;
import io.idempotent.runtime.IdempotentCall;
import io.idempotent.runtime.OneTimeTokens;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.CallClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.lang.reflect.Type;
import java.math.BigInteger;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link IdempotencyStore} passes: claims, completions, fencing of stale owners, expiry,
 * purging, keys of every shape, concurrent duplicates, one-time tokens, and the engine replaying results and
 * failures through the store. A store's test is a small subclass that says how to create the store and how
 * to let time pass:
 *
 * <pre>{@code
 * class CaffeineStoreContractTest extends IdempotencyStoreContract {
 *   private final ManualTimeSource ticker = new ManualTimeSource();
 *   protected IdempotencyStore createStore() { return CaffeineIdempotencyStore.builder().ticker(ticker::read).build(); }
 *   protected void advancePast(Duration d) { ticker.advance(d.plusNanos(1)); }
 * }
 * }</pre>
 *
 * A store whose time cannot be faked (a database's clock, a server's) sleeps in {@link #advancePast}; the
 * tests keep their leases as short as {@link #SHORT} for it. {@link #closeStore}, {@link #expiresByItself},
 * {@link #fuzzKeys} and {@link #fuzzThreads} may be overridden. A store shared by several application
 * instances also passes {@link MultiInstanceContract}, and every store {@link HostileInputContract}.
 *
 * <p>Keys are unique per test run, so stores backed by a shared table need no cleaning between tests.
 */
public abstract class IdempotencyStoreContract {

  /** A lease or TTL short enough for stores whose time cannot be faked (database clocks). */
  protected static final Duration SHORT = Duration.ofMillis(600);
  /** The shortest lease a call may have (the engine's floor), for engine-level tests of expiry. */
  protected static final Duration CALL_LEASE = Duration.ofSeconds(1);
  /** Long enough never to run out during a test. */
  protected static final Duration LONG = Duration.ofMinutes(10);

  protected IdempotencyStore store;
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  /** A fresh store (it may share its backing table with earlier tests). */
  protected abstract IdempotencyStore createStore() throws Exception;

  /** Lets the store's clock pass {@code d} and a little more: advance a fake ticker, or sleep. */
  protected abstract void advancePast(Duration d) throws Exception;

  /** Closes what {@link #createStore()} opened. */
  protected void closeStore(IdempotencyStore store) throws Exception {}

  /**
   * True for stores that drop expired records on their own (a cache with per-entry expiry), so that
   * {@link IdempotencyStore#purgeExpired} may find nothing left to delete.
   */
  protected boolean expiresByItself() {
    return false;
  }

  /** How many distinct keys the fuzz test uses. */
  protected int fuzzKeys() {
    return 1_000;
  }

  /** How many threads the fuzz test uses. */
  protected int fuzzThreads() {
    return 16;
  }

  @BeforeEach
  void openStore() throws Exception {
    store = createStore();
  }

  @AfterEach
  void shutStore() throws Exception {
    closeStore(store);
  }

  /** Runs {@code body} on {@code threads} threads released together; rethrows the first failure. */
  protected static void concurrently(int threads, java.util.concurrent.Callable<?> body) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          start.await();
          return body.call();
        }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(10, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The stored key of {@code name} in a namespace of this test run, composed for the store's
   * {@link io.idempotent.spi.KeyLimits#keyRules()} as the engine composes it.
   */
  protected String key(String name) {
    return StoredKeys.compose("kit:" + run, null, name, KeyLimits.rulesOf(store));
  }

  private static String owner() {
    return UUID.randomUUID().toString();
  }

  private static StoredOutcome value(String json) {
    return StoredOutcome.value(json, () -> json);
  }

  private static void assertValue(StoredOutcome outcome, String expectedJson) {
    assertThat(outcome.kind()).isEqualTo(StoredOutcome.Kind.VALUE);
    if (outcome.hasReference()) {
      assertThat(outcome.reference()).isEqualTo(expectedJson);
    } else {
      assertThat(outcome.json()).isEqualTo(expectedJson);
    }
  }

  @Test
  void claim_absentKey_acquires() {
    assertThat(store.claim(key("a"), "fp", owner(), LONG).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
  }

  @Test
  void engine_valueClassWithoutGetters_replaysEqual() {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    Map<String, Integer> tags = new java.util.HashMap<>();
    tags.put("vip", 1);
    tags.put("none", null);
    List<ReplayShapes.Line> lines = new ArrayList<>();
    lines.add(new ReplayShapes.Line("a", 2));
    lines.add(new ReplayShapes.Line(null, null));
    ReplayShapes.Statement original = new ReplayShapes.Statement("st-1", 1999,
        java.time.ZonedDateTime.of(2026, 7, 1, 9, 30, 0, 0, java.time.ZoneId.of("Europe/Paris")), null, lines, tags);
    AtomicInteger runs = new AtomicInteger();
    String ns = "value-" + run;
    ReplayShapes.Statement first = idempotency.call(ns, ReplayShapes.Statement.class).key("k").run(() -> {
      runs.incrementAndGet();
      return original;
    });
    ReplayShapes.Statement again = idempotency.call(ns, ReplayShapes.Statement.class).key("k").run(() -> {
      runs.incrementAndGet();
      return null;
    });
    assertThat(first).isSameAs(original);
    assertThat(again).isEqualTo(original);
    assertThat(again.toString()).contains("[Europe/Paris]");
    assertThat(runs.get()).isEqualTo(1);
  }

  @Test
  void engine_recordedFinalExceptions_replayWithTheirTypeMessageFieldsAndCause() {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    List<RuntimeException> thrown = List.of(
        new ReplayShapes.CardDeclined("51"),
        new ReplayShapes.LimitExceeded(500),
        new ReplayShapes.GatewayRefused("gateway refused", new java.io.IOException("read timed out")),
        new Concealed("concealed"),
        new ReplayShapes.InvalidCoupon("coupon SPRING expired"),
        // what UTF-8 columns cannot hold must come back too
        new ReplayShapes.InvalidCoupon("coupon \uD800 and \u0000 expired \uDFFF"));
    for (int i = 0; i < thrown.size(); i++) {
      RuntimeException original = thrown.get(i);
      String key = original.getClass().getSimpleName() + i;
      Class<? extends Throwable> declared =
          original instanceof IllegalArgumentException ? IllegalArgumentException.class : original.getClass();
      AtomicInteger runs = new AtomicInteger();
      java.util.function.Supplier<RuntimeException> call = () -> {
        try {
          idempotency.call("failure-" + run, String.class).key(key)
              .finalExceptions(declared)
              .run(() -> {
                runs.incrementAndGet();
                throw original;
              });
          return null;
        } catch (RuntimeException e) {
          return e;
        }
      };
      assertThat(call.get()).isSameAs(original);
      RuntimeException replayed = call.get();
      assertThat(runs.get()).as("runs of " + original.getClass().getSimpleName()).isEqualTo(1);
      assertThat(replayed).isExactlyInstanceOf(original.getClass()).isNotSameAs(original)
          .hasMessage(original.getMessage());
      if (original instanceof ReplayShapes.CardDeclined d) {
        assertThat(((ReplayShapes.CardDeclined) replayed).code()).isEqualTo(d.code());
      }
      if (original instanceof ReplayShapes.LimitExceeded l) {
        assertThat(((ReplayShapes.LimitExceeded) replayed).limit()).isEqualTo(l.limit());
      }
      if (original.getCause() != null) {
        assertThat(replayed.getCause()).isInstanceOf(io.idempotent.ReplayedCause.class).hasMessage("read timed out");
        assertThat(((io.idempotent.ReplayedCause) replayed.getCause()).originalType()).isEqualTo("java.io.IOException");
      } else {
        assertThat(replayed.getCause()).isNull();
      }
    }
  }

  @Test
  void claim_liveInProgress_returnsExistingWithItsFingerprint() {
    String k = key("a");
    store.claim(k, "fp-1", owner(), LONG);
    ClaimResult second = store.claim(k, "fp-2", owner(), LONG);
    assertThat(second.claimed()).isFalse();
    assertThat(second.existing().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(second.existing().fingerprint()).isEqualTo("fp-1");
  }

  @Test
  void complete_byOwner_isReplayedByLaterClaims() {
    String k = key("a");
    String o = owner();
    store.claim(k, "fp", o, LONG);
    assertThat(store.complete(k, o, value("{\"id\":42}"), LONG)).isTrue();
    ClaimResult again = store.claim(k, "fp", owner(), LONG);
    assertThat(again.claimed()).isFalse();
    assertThat(again.existing().state()).isEqualTo(RecordState.COMPLETED);
    assertThat(again.existing().fingerprint()).isEqualTo("fp");
    assertValue(again.existing().outcome(), "{\"id\":42}");
    assertValue(store.find(k).orElseThrow().outcome(), "{\"id\":42}");
  }

  @Test
  void complete_nullAndFailureOutcomes_roundTrip() {
    String nk = key("null");
    String fk = key("failure");
    String o = owner();
    store.claim(nk, "fp", o, LONG);
    store.claim(fk, "fp", o, LONG);
    assertThat(store.complete(nk, o, StoredOutcome.nullValue(), LONG)).isTrue();
    assertThat(store.complete(fk, o, StoredOutcome.failure("com.example.Declined", "card declined"), LONG)).isTrue();
    assertThat(store.find(nk).orElseThrow().outcome().kind()).isEqualTo(StoredOutcome.Kind.NULL);
    StoredOutcome failure = store.find(fk).orElseThrow().outcome();
    assertThat(failure.kind()).isEqualTo(StoredOutcome.Kind.FAILURE);
    assertThat(failure.failureType()).isEqualTo("com.example.Declined");
    assertThat(failure.failureMessage()).isEqualTo("card declined");
  }

  @Test
  void complete_failureWithoutMessage_keepsNullMessage() {
    String k = key("a");
    String o = owner();
    store.claim(k, "fp", o, LONG);
    store.complete(k, o, StoredOutcome.failure("com.example.Declined", null), LONG);
    assertThat(store.find(k).orElseThrow().outcome().failureMessage()).isNull();
  }

  @Test
  void complete_byAnotherOwner_changesNothing() {
    String k = key("a");
    String o = owner();
    store.claim(k, "fp", o, LONG);
    assertThat(store.complete(k, owner(), value("\"x\""), LONG)).isFalse();
    assertThat(store.release(k, owner())).isFalse();
    assertThat(store.renew(k, owner(), LONG)).isFalse();
    IdempotencyRecord r = store.find(k).orElseThrow();
    assertThat(r.state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(store.complete(k, o, value("\"x\""), LONG)).isTrue();
  }

  @Test
  void claim_afterLeaseExpiry_takesOver_andFencesTheStaleOwner() throws Exception {
    String k = key("a");
    String stale = owner();
    String fresh = owner();
    store.claim(k, "fp", stale, SHORT);
    advancePast(SHORT);
    assertThat(store.find(k)).isEmpty();
    assertThat(store.claim(k, "fp", fresh, LONG).status()).isEqualTo(ClaimResult.Status.TAKEN_OVER);
    assertThat(store.complete(k, stale, value("\"stale\""), LONG)).isFalse();
    assertThat(store.release(k, stale)).isFalse();
    assertThat(store.renew(k, stale, LONG)).isFalse();
    assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(store.complete(k, fresh, value("\"fresh\""), LONG)).isTrue();
    assertValue(store.find(k).orElseThrow().outcome(), "\"fresh\"");
  }

  @Test
  void complete_byLateOwnerWhomNobodyReplaced_isKept() throws Exception {
    String k = key("a");
    String late = owner();
    store.claim(k, "fp", late, SHORT);
    advancePast(SHORT.multipliedBy(2).plus(SHORT.dividedBy(2))); // well past the lease; nobody claimed
    assertThat(store.find(k)).as("an expired claim is absent to readers").isEmpty();
    assertThat(store.complete(k, late, value("\"late\""), LONG)).as("the late owner still holds the claim").isTrue();
    ClaimResult again = store.claim(k, "fp", owner(), LONG);
    assertThat(again.claimed()).as("its completion saves a second execution").isFalse();
    assertValue(again.existing().outcome(), "\"late\"");
  }

  @Test
  void claimRenewComplete_centuriesLongDurations_neitherOverflowNorLoseTheRecord() {
    Duration centuries = ChronoUnit.CENTURIES.getDuration().multipliedBy(3);
    String k = key("a");
    String o = owner();
    assertThat(store.claim(k, "fp", o, centuries).claimed()).isTrue();
    assertThat(store.claim(k, "fp", owner(), LONG).claimed()).isFalse();
    assertThat(store.renew(k, o, centuries)).isTrue();
    assertThat(store.complete(k, o, value("\"v\""), centuries)).isTrue();
    assertValue(store.find(k).orElseThrow().outcome(), "\"v\"");
  }

  @Test
  void engine_waiterWhoseFirstCallersLeaseRanOut_takesOverAsOnEveryStore() throws Exception {
    CountDownLatch waiterFoundItRunning = new CountDownLatch(1);
    IdempotencyStore watched = new ForwardingIdempotencyStore(store) {
      @Override
      public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease,
          io.idempotent.Effects effects) {
        CallClaim r = super.claimForCall(key, fingerprint, owner, lease, effects);
        if (!r.result().claimed()) {
          waiterFoundItRunning.countDown(); // the waiter goes on to wait
        }
        return r;
      }
    };
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(watched).leaseRenewal(false)
        .defaultWaitTimeout(Duration.ofMinutes(2)).build());
    String ns = "takeover-" + run;
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch firstMayEnd = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<String> first = pool.submit(() -> idempotency.call(ns, String.class).key("k").lease(CALL_LEASE).run(() -> {
        firstRunning.countDown();
        firstMayEnd.await(2, TimeUnit.MINUTES);
        return "first";
      }));
      assertThat(firstRunning.await(30, TimeUnit.SECONDS)).isTrue();
      Future<String> waiter = pool.submit(() -> idempotency.call(ns, String.class).key("k").lease(CALL_LEASE)
          .onInProgress(OnInProgress.WAIT).run(() -> "waiter"));
      assertThat(waiterFoundItRunning.await(30, TimeUnit.SECONDS)).isTrue();
      advancePast(CALL_LEASE); // the first caller's lease runs out; it is stuck and does not renew
      assertThat(waiter.get(30, TimeUnit.SECONDS)).as("the waiter takes the dead lease over and runs").isEqualTo("waiter");
      firstMayEnd.countDown();
      assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("first");
      assertThat(idempotency.call(ns, String.class).key("k").execute(() -> "third").value())
          .as("the late first caller's completion was fenced off").isEqualTo("waiter");
    } finally {
      firstMayEnd.countDown();
      pool.shutdownNow();
    }
  }

  /** Beyond what the JSON reader once accepted (1,000 digits, 50,000-character names, 20 MB strings). */
  @Test
  void engine_largeResultsWithinTheMaximum_replayEqual() {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    Map<String, List<BigInteger>> big = new HashMap<>();
    big.put("n".repeat(60_000), new ArrayList<>(List.of(BigInteger.TEN.pow(1_500).add(BigInteger.ONE))));
    big.put("text", null);
    big.put("k", new ArrayList<>(List.of(BigInteger.valueOf(7))));
    Type type = new TypeReference<Map<String, List<BigInteger>>>() {}.getType();
    AtomicInteger runs = new AtomicInteger();
    for (int i = 0; i < 2; i++) {
      Object result = idempotency.call("large-" + run, type).key("k").run(() -> {
        runs.incrementAndGet();
        return big;
      });
      assertThat(result).isEqualTo(big);
    }
    assertThat(runs).hasValue(1);
  }

  @Test
  void renew_byOwner_keepsTheClaimPastItsFirstLease() throws Exception {
    String k = key("a");
    String o = owner();
    Duration lease = SHORT.multipliedBy(2);
    store.claim(k, "fp", o, lease);
    advancePast(SHORT);
    assertThat(store.renew(k, o, lease)).isTrue();
    advancePast(SHORT);
    // past the first lease, within the renewed one
    assertThat(store.claim(k, "fp", owner(), LONG).claimed()).isFalse();
    assertThat(store.complete(k, o, StoredOutcome.nullValue(), LONG)).isTrue();
  }

  @Test
  void callClaim_completedThroughItsHandle_isKept_andItsAfterCommitActionRunsOnceCommitted() {
    String k = key("call-complete");
    CallClaim call = CallClaims.claim(store, k, "fp", owner(), LONG, Effects.EXTERNAL);
    assertThat(call.result().claimed()).isTrue();
    assertThat(call.renew(LONG)).isTrue();
    assertThat(call.complete(value("\"v\""), LONG)).isTrue();
    List<String> ran = new ArrayList<>();
    call.afterCommit(() -> ran.add("committed")); // an external call's outcome commits on its own
    assertThat(ran).containsExactly("committed");
    assertValue(store.find(k).orElseThrow().outcome(), "\"v\"");
    CallClaim again = CallClaims.claim(store, k, "fp", owner(), LONG, Effects.EXTERNAL);
    assertThat(again.result().claimed()).isFalse();
    assertThat(again.result().existing().state()).isEqualTo(RecordState.COMPLETED);
    assertValue(again.result().existing().outcome(), "\"v\"");
  }

  @Test
  void callClaim_releasedThroughItsHandle_letsTheKeyBeClaimedAgain() {
    String k = key("call-release");
    CallClaim call = CallClaims.claim(store, k, "fp", owner(), LONG, Effects.EXTERNAL);
    assertThat(call.result().claimed()).isTrue();
    assertThat(call.release()).isTrue();
    assertThat(store.find(k)).isEmpty();
    assertThat(CallClaims.claim(store, k, "fp", owner(), LONG, Effects.EXTERNAL).result().claimed()).isTrue();
  }

  @Test
  void callClaim_completedDetached_isKept() {
    String k = key("call-detached");
    CallClaim call = CallClaims.claim(store, k, "fp", owner(), LONG, Effects.EXTERNAL);
    assertThat(call.completeDetached(StoredOutcome.nullValue(), LONG)).isTrue();
    assertThat(store.find(k).orElseThrow().outcome().kind()).isEqualTo(StoredOutcome.Kind.NULL);
  }

  @Test
  void callClaim_ofAKeyRunningElsewhere_holdsNothing_andLeavesThatCallItsKey() {
    String k = key("call-other");
    String first = owner();
    assertThat(store.claim(k, "fp", first, LONG).claimed()).isTrue();
    CallClaim second = CallClaims.claim(store, k, "fp", owner(), LONG, Effects.EXTERNAL);
    assertThat(second.result().claimed()).isFalse();
    assertThat(second.result().existing().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(store.complete(k, first, value("\"first\""), LONG)).isTrue();
    assertValue(store.find(k).orElseThrow().outcome(), "\"first\"");
  }

  @Test
  void release_byOwner_letsTheKeyBeClaimedAgain() {
    String k = key("a");
    String o = owner();
    store.claim(k, "fp", o, LONG);
    assertThat(store.release(k, o)).isTrue();
    assertThat(store.find(k)).isEmpty();
    assertThat(store.claim(k, "fp", owner(), LONG).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
  }

  @Test
  void release_ofCompletedRecord_changesNothing() {
    String k = key("a");
    String o = owner();
    store.claim(k, "fp", o, LONG);
    store.complete(k, o, StoredOutcome.nullValue(), LONG);
    assertThat(store.release(k, o)).isFalse();
    assertThat(store.find(k).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void completed_pastItsTtl_isAbsent() throws Exception {
    String k = key("a");
    String o = owner();
    store.claim(k, "fp", o, LONG);
    store.complete(k, o, value("\"v\""), SHORT);
    assertThat(store.find(k)).isPresent();
    advancePast(SHORT);
    assertThat(store.find(k)).isEmpty();
    assertThat(store.claim(k, "other-fp", owner(), LONG).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
  }

  @Test
  void find_absentKey_isEmpty() {
    assertThat(store.find(key("never"))).isEmpty();
  }

  @Test
  void purgeExpired_deletesExpiredInBatches_andKeepsLiveRecords() throws Exception {
    List<String> expired = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String k = key("expired-" + i);
      String o = owner();
      store.claim(k, "fp", o, LONG);
      store.complete(k, o, StoredOutcome.nullValue(), SHORT);
      expired.add(k);
    }
    String live = key("live");
    String o = owner();
    store.claim(live, "fp", o, LONG);
    store.complete(live, o, value("\"kept\""), LONG);
    String running = key("running");
    store.claim(running, "fp", owner(), LONG);
    advancePast(SHORT);
    int total = 0;
    int rounds = 0;
    for (int n = store.purgeExpired(2); n > 0; n = store.purgeExpired(2)) {
      assertThat(n).as("a batch never exceeds its bound").isLessThanOrEqualTo(2);
      total += n;
      assertThat(++rounds).as("purge terminates").isLessThan(100_000);
    }
    if (!expiresByItself()) {
      assertThat(total).isGreaterThanOrEqualTo(expired.size());
    }
    assertValue(store.find(live).orElseThrow().outcome(), "\"kept\"");
    assertThat(store.find(running).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    for (String k : expired) {
      assertThat(store.find(k)).isEmpty();
    }
  }

  @Test
  void keys_withUnicodeQuotesAndControlCharacters_areKeptApart() {
    List<String> keys = List.of("o'neil", "o\"neil", "ключ-🔑", "a\u0000b", "a\u0001b", "x; DROP TABLE t;--", "a b",
        "a\tb", "A B");
    String o = owner();
    for (String k : keys) {
      assertThat(store.claim(key(k), "fp", o, LONG).claimed()).as(k).isTrue();
      store.complete(key(k), o, value("\"" + keys.indexOf(k) + "\""), LONG);
    }
    for (String k : keys) {
      assertValue(store.find(key(k)).orElseThrow().outcome(), "\"" + keys.indexOf(k) + "\"");
    }
  }

  @Test
  void keys_atTheStoresLimit_areAccepted() {
    StoreKeyRules rules = KeyLimits.rulesOf(store);
    int max = Math.min(Math.min(rules.maxChars(), rules.maxUtf8Bytes()), 10_000);
    String k = key("");
    String longKey = k + "x".repeat(max - k.length());
    assertThat(store.claim(longKey, "fp", owner(), LONG).claimed()).isTrue();
    assertThat(store.find(longKey).orElseThrow().key()).isEqualTo(longKey);
  }

  /**
   * A key that breaks the store's rules (too long, or with a character it cannot hold) never reaches it
   * from the engine; from another caller it is refused, never kept as something else. A key the rules
   * allow is kept as given.
   */
  @Test
  void keys_breakingTheStoresRules_areRefused_othersKeptAsGiven() {
    StoreKeyRules rules = KeyLimits.rulesOf(store);
    String stem = "kit:" + run + ":";
    List<String> candidates = List.of(stem + "x".repeat(100_000), stem + "\u0000", stem + "a\u0000b",
        stem + "a\uD800", stem + "\uDC00b", stem + "ж".repeat(40_000));
    for (String k : candidates) {
      String what = k.length() > 100 ? k.length() + " characters" : k;
      if (rules.accepts(k)) {
        assertThat(store.claim(k, "fp", owner(), LONG).claimed()).as("claim of %s", what).isTrue();
        assertThat(store.find(k).orElseThrow().key()).as("find of %s", what).isEqualTo(k);
      } else {
        assertThatThrownBy(() -> store.claim(k, "fp", owner(), LONG)).as("claim of %s", what)
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.find(k)).as("find of %s", what).isInstanceOf(IllegalArgumentException.class);
      }
    }
  }

  @Test
  void claim_concurrentDuplicates_exactlyOneAcquires() throws Exception {
    int keys = 200;
    Map<String, AtomicInteger> acquired = new ConcurrentHashMap<>();
    concurrently(fuzzThreads(), () -> {
      for (int i = 0; i < keys; i++) {
        String k = key("race-" + i);
        if (store.claim(k, "fp", owner(), LONG).claimed()) {
          acquired.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
        }
      }
      return null;
    });
    assertThat(acquired).hasSize(keys);
    assertThat(acquired.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
  }

  private OneTimeTokens tokens() {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build()).tokens("form-" + run);
  }

  @Test
  void token_issued_isConsumedExactlyOnce() {
    OneTimeTokens tokens = tokens();
    String t = tokens.issue(LONG);
    tokens.consume(t);
    assertThatThrownBy(() -> tokens.consume(t)).isInstanceOf(IdempotencyTokenException.class)
        .extracting(e -> ((IdempotencyTokenException) e).reason())
        .isEqualTo(IdempotencyTokenException.Reason.ALREADY_USED);
  }

  @Test
  void token_unknownOrExpired_isRefused() throws Exception {
    OneTimeTokens tokens = tokens();
    assertThatThrownBy(() -> tokens.consume("never-issued")).isInstanceOf(IdempotencyTokenException.class)
        .extracting(e -> ((IdempotencyTokenException) e).reason())
        .isEqualTo(IdempotencyTokenException.Reason.UNKNOWN_OR_EXPIRED);
    String t = tokens.issue(SHORT);
    advancePast(SHORT);
    assertThat(tokens.tryConsume(t)).isFalse();
    assertThat(tokens.tryConsume(null)).isFalse();
  }

  @Test
  void token_concurrentConsumers_exactlyOneWins() throws Exception {
    OneTimeTokens tokens = tokens();
    List<String> issued = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      issued.add(tokens.issue(LONG));
    }
    AtomicInteger wins = new AtomicInteger();
    concurrently(fuzzThreads(), () -> {
      for (String token : issued) {
        if (tokens.tryConsume(token)) {
          wins.incrementAndGet();
        }
      }
      return null;
    });
    assertThat(wins).hasValue(issued.size());
  }

  /**
   * The fuzz test: many threads send every key several times, in shuffled order, through the engine.
   * Each key must run exactly once and every call must get that one execution's result.
   */
  @Test
  void engine_concurrentDuplicateCalls_executeEachKeyExactlyOnce_andLoseNoResult() throws Exception {
    int keys = fuzzKeys();
    int copies = 3;
    int threads = fuzzThreads();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(store)
        .defaultWaitTimeout(Duration.ofMinutes(2))
        .build());
    List<Integer> work = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      for (int c = 0; c < copies; c++) {
        work.add(i);
      }
    }
    Collections.shuffle(work, new Random(42));
    Map<Integer, AtomicInteger> executions = new ConcurrentHashMap<>();
    Map<Integer, AtomicInteger> answers = new ConcurrentHashMap<>();
    AtomicInteger wrong = new AtomicInteger();
    AtomicInteger next = new AtomicInteger();
    String ns = "fuzz-" + run;
    concurrently(threads, () -> {
      for (int i = next.getAndIncrement(); i < work.size(); i = next.getAndIncrement()) {
        int k = work.get(i);
        String result = idempotency.call(ns, String.class)
            .key("k" + k)
            .payload(k)
            .onInProgress(OnInProgress.WAIT)
            .run(() -> {
              executions.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
              return "result-" + k;
            });
        if (!("result-" + k).equals(result)) {
          wrong.incrementAndGet();
        }
        answers.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
      }
      return null;
    });
    assertThat(wrong.get()).as("calls that got another call's result").isZero();
    assertThat(executions).hasSize(keys);
    assertThat(executions.values()).allSatisfy(n -> assertThat(n.get()).as("executions per key").isEqualTo(1));
    assertThat(answers.values()).allSatisfy(n -> assertThat(n.get()).as("answered calls per key").isEqualTo(copies));
    Optional<IdempotencyRecord> sample = store.find(StoredKeys.compose(ns, null, "k0", KeyLimits.rulesOf(store)));
    assertThat(sample).hasValueSatisfying(r -> assertThat(r.state()).isEqualTo(RecordState.COMPLETED));
  }

  /** Declared result types, read back by reflection so that calls carry their full generic type. */
  @SuppressWarnings("unused")
  private static final class ResultTypes {
    ArrayList<String> list;
    Optional<ArrayList<String>> optionalList;
    CompletableFuture<ArrayList<String>> stageList;
  }

  private static Type resultType(String field) {
    try {
      return ResultTypes.class.getDeclaredField(field).getGenericType();
    } catch (NoSuchFieldException e) {
      throw new AssertionError(e);
    }
  }

  /** A plain mutable result: private fields, a no-arg constructor and setters, a null deep inside. */
  public static final class Basket {
    private String owner;
    private List<String> items;
    private String note;

    public Basket() {}

    Basket(String owner, List<String> items, String note) {
      this.owner = owner;
      this.items = items;
      this.note = note;
    }

    public String getOwner() {
      return owner;
    }

    public void setOwner(String owner) {
      this.owner = owner;
    }

    public List<String> getItems() {
      return items;
    }

    public void setItems(List<String> items) {
      this.items = items;
    }

    public String getNote() {
      return note;
    }

    public void setNote(String note) {
      this.note = note;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Basket b && Objects.equals(owner, b.owner) && Objects.equals(items, b.items)
          && Objects.equals(note, b.note);
    }

    @Override
    public int hashCode() {
      return Objects.hash(owner, items, note);
    }

    @Override
    public String toString() {
      return "Basket[" + owner + ", " + items + ", " + note + "]";
    }
  }

  private Idempotency engine() {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  @Test
  void engine_callerMutatesTheReturnedList_replaysReturnTheRecordedList() {
    Idempotency idempotency = engine();
    String ns = "mutable-list-" + run;
    AtomicInteger executions = new AtomicInteger();
    Supplier<CallResult<ArrayList<String>>> call = () -> idempotency.<ArrayList<String>>call(ns, resultType("list"))
        .key("k")
        .execute(() -> {
          executions.incrementAndGet();
          return new ArrayList<>(List.of("a"));
        });
    ArrayList<String> first = call.get().value();
    first.add("MUTATED");
    CallResult<ArrayList<String>> second = call.get();
    assertThat(second.replayed()).isTrue();
    assertThat(second.value()).containsExactly("a");
    second.value().add("M2");
    CallResult<ArrayList<String>> third = call.get();
    assertThat(third.replayed()).isTrue();
    assertThat(third.value()).containsExactly("a");
    assertThat(executions).hasValue(1);
  }

  @Test
  void engine_callerMutatesTheReturnedObject_replaysReturnTheRecordedObject() {
    Idempotency idempotency = engine();
    String ns = "mutable-object-" + run;
    Basket recorded = new Basket("ann", Arrays.asList("apple", null), null);
    Supplier<CallResult<Basket>> call = () -> idempotency.call(ns, Basket.class)
        .key("k")
        .execute(() -> new Basket("ann", new ArrayList<>(Arrays.asList("apple", null)), null));
    Basket first = call.get().value();
    first.setOwner("eve");
    first.getItems().add("MUTATED");
    first.setNote("changed after return");
    CallResult<Basket> second = call.get();
    assertThat(second.replayed()).isTrue();
    assertThat(second.value()).isEqualTo(recorded);
    second.value().getItems().set(0, "M2");
    assertThat(call.get().value()).isEqualTo(recorded);
  }

  @Test
  void engine_callerMutatesTheListInsideAReturnedOptional_replaysReturnTheRecordedList() {
    Idempotency idempotency = engine();
    String ns = "mutable-optional-" + run;
    Supplier<Optional<ArrayList<String>>> call = () -> idempotency.<Optional<ArrayList<String>>>call(
        ns, resultType("optionalList")).key("k").run(() -> Optional.of(new ArrayList<>(List.of("a"))));
    call.get().orElseThrow().add("MUTATED");
    Optional<ArrayList<String>> replayed = call.get();
    assertThat(replayed).hasValueSatisfying(list -> assertThat(list).containsExactly("a"));
    replayed.orElseThrow().add("M2");
    assertThat(call.get()).hasValueSatisfying(list -> assertThat(list).containsExactly("a"));
  }

  @Test
  void engine_callerMutatesTheListAFutureCompletedWith_replaysReturnTheRecordedList() throws Exception {
    Idempotency idempotency = engine();
    String ns = "mutable-stage-" + run;
    Supplier<CompletableFuture<ArrayList<String>>> call = () -> idempotency
        .<CompletableFuture<ArrayList<String>>>call(ns, resultType("stageList"))
        .key("k")
        .run(() -> CompletableFuture.completedFuture(new ArrayList<>(List.of("a"))));
    call.get().get(10, TimeUnit.SECONDS).add("MUTATED");
    ArrayList<String> replayed = call.get().get(10, TimeUnit.SECONDS);
    assertThat(replayed).containsExactly("a");
    replayed.add("M2");
    assertThat(call.get().get(10, TimeUnit.SECONDS)).containsExactly("a");
  }

  /** Keys as long as the store takes (hashed past its limit), differing only in their last character. */
  @Test
  void engine_longKeysDifferingOnlyInALoneSurrogate_areKeptApart() {
    Idempotency idempotency = engine();
    String ns = "surrogate-key-" + run;
    String stem = "x".repeat(Math.min(KeyLimits.rulesOf(store).maxChars(), 10_000));
    List<String> endings = List.of("\uD800", "\uD801", "\uDC00", "?", "\uFFFD");
    assertDistinctCalls(endings, ending -> idempotency.call(ns, String.class).key(stem + ending));
  }

  /** As above for the scope: a long scope that differs only in a lone surrogate. */
  @Test
  void engine_longScopesDifferingOnlyInALoneSurrogate_areKeptApart() {
    Idempotency idempotency = engine();
    String ns = "surrogate-scope-" + run;
    String stem = "s".repeat(Math.min(KeyLimits.rulesOf(store).maxChars(), 10_000));
    List<String> endings = List.of("\uDBFF", "\uDFFF", "?");
    assertDistinctCalls(endings, ending -> idempotency.call(ns, String.class).scope(stem + ending).key("k"));
  }

  /** Runs one call per ending, then each again: every ending must replay its own result. */
  private static void assertDistinctCalls(
      List<String> endings, java.util.function.Function<String, IdempotentCall<String>> call) {
    AtomicInteger executions = new AtomicInteger();
    for (int round = 0; round < 2; round++) {
      for (String ending : endings) {
        String result = call.apply(ending).run(() -> {
          executions.incrementAndGet();
          return "result-" + endings.indexOf(ending);
        });
        assertThat(result).as("the call ending in U+%04X", (int) ending.charAt(0))
            .isEqualTo("result-" + endings.indexOf(ending));
      }
    }
    assertThat(executions).as("executions").hasValue(endings.size());
  }

  @Test
  void keys_differingOnlyInALoneSurrogate_areKeptApart() {
    List<String> keys = List.of("a\uD800b", "a\uD801b", "a\uDC00b", "a?b", "a\uFFFDb", "a\uDBFF\uDFFFb", "\uD800",
        "\u0000\uD800");
    String o = owner();
    for (String k : keys) {
      assertThat(store.claim(key(k), "fp", o, LONG).claimed()).as("claim of key %s", keys.indexOf(k)).isTrue();
      store.complete(key(k), o, value("\"" + keys.indexOf(k) + "\""), LONG);
    }
    for (String k : keys) {
      assertValue(store.find(key(k)).orElseThrow().outcome(), "\"" + keys.indexOf(k) + "\"");
    }
  }

  /**
   * A codec other than the default may write a lone surrogate into its JSON as it is; whatever spelling
   * the store keeps, the JSON read back must mean the same value.
   */
  @Test
  void complete_jsonWithALoneSurrogateAndNul_readsBackAsTheSameValue() throws Exception {
    String k = key("a");
    String o = owner();
    String text = "x\uD800y\uDC00z\u0000";
    String json = "{\"s\":\"x\uD800y\uDC00z\\u0000\"}"; // raw lone surrogates, NUL escaped as JSON requires
    store.claim(k, "fp", o, LONG);
    assertThat(store.complete(k, o, StoredOutcome.valueJson(json), LONG)).isTrue();
    StoredOutcome read = store.find(k).orElseThrow().outcome();
    assertThat(read.kind()).isEqualTo(StoredOutcome.Kind.VALUE);
    assertThat(new ObjectMapper().readTree(read.json()).get("s").textValue()).isEqualTo(text);
  }

  /** A result the default codec cannot encode: its only property throws when read. */
  public static final class Unencodable {
    @SuppressWarnings("DoNotCallSuggester") // the JSON writer calls it: its failure is what the contract tests
    public String getValue() {
      throw new IllegalStateException("cannot be read");
    }
  }

  /** A result that cannot be recorded fails the call and releases the key, so a retry runs again. */
  @Test
  void engine_resultThatCannotBeEncoded_failsTheCallAndReleasesTheKey() {
    Idempotency idempotency = engine();
    String ns = "unencodable-" + run;
    AtomicInteger executions = new AtomicInteger();
    for (int attempt = 0; attempt < 2; attempt++) {
      assertThatThrownBy(() -> idempotency.call(ns, Unencodable.class).key("k").run(() -> {
        executions.incrementAndGet();
        return new Unencodable();
      })).isInstanceOf(IdempotencyResultException.class);
    }
    assertThat(executions).as("each attempt ran, since the first released the key").hasValue(2);
    assertThat(store.find(StoredKeys.compose(ns, null, "k", KeyLimits.rulesOf(store)))).isEmpty();
  }

  // ---- batches (docs/MESSAGING.md, Batches): the store's BatchClaims where it offers them, and the engine's
  // batch on every store

  private BatchClaims batchClaims() {
    org.junit.jupiter.api.Assumptions.assumeTrue(store instanceof BatchClaims,
        () -> store.getClass().getSimpleName() + " does not offer batch claims");
    return (BatchClaims) store;
  }

  @Test
  void claimAll_claimsAbsentKeys_andAnswersLiveOnes_inTheClaimsOrder() {
    BatchClaims batch = batchClaims();
    String running = key("running");
    String done = key("done");
    String other = owner();
    store.claim(running, "fp-running", other, LONG);
    store.claim(done, "fp-done", other, LONG);
    store.complete(done, other, value("\"done\""), LONG);
    String o = owner();
    List<ClaimResult> results = batch.claimAll(List.of(new BatchClaims.Claim(key("a"), "fp-a"),
        new BatchClaims.Claim(running, "fp-x"), new BatchClaims.Claim(done, "fp-y"),
        new BatchClaims.Claim(key("b"), "fp-b")), o, LONG);
    assertThat(results).extracting(ClaimResult::status).containsExactly(ClaimResult.Status.ACQUIRED,
        ClaimResult.Status.EXISTING, ClaimResult.Status.EXISTING, ClaimResult.Status.ACQUIRED);
    assertThat(results.get(1).existing().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(results.get(1).existing().fingerprint()).isEqualTo("fp-running");
    assertThat(results.get(2).existing().state()).isEqualTo(RecordState.COMPLETED);
    assertValue(results.get(2).existing().outcome(), "\"done\"");
    assertThat(store.find(key("a")).orElseThrow().fingerprint()).isEqualTo("fp-a");
    assertThat(store.release(key("b"), o)).as("the batch's owner holds what it claimed").isTrue();
  }

  @Test
  void claimAll_takesOverExpiredClaims() throws Exception {
    BatchClaims batch = batchClaims();
    String stale = owner();
    store.claim(key("a"), "fp", stale, SHORT);
    advancePast(SHORT);
    String o = owner();
    List<ClaimResult> results = batch.claimAll(List.of(new BatchClaims.Claim(key("a"), "fp"),
        new BatchClaims.Claim(key("b"), "fp")), o, LONG);
    assertThat(results).extracting(ClaimResult::status)
        .containsExactly(ClaimResult.Status.TAKEN_OVER, ClaimResult.Status.ACQUIRED);
    assertThat(store.complete(key("a"), stale, value("\"stale\""), LONG)).isFalse();
  }

  @Test
  void completeAll_recordsTheKeysTheOwnerHolds_andFencesTheRest() {
    BatchClaims batch = batchClaims();
    String o = owner();
    batch.claimAll(List.of(new BatchClaims.Claim(key("a"), "fp"), new BatchClaims.Claim(key("b"), "fp")), o, LONG);
    store.claim(key("c"), "fp", owner(), LONG);
    boolean[] recorded = batch.completeAll(List.of(new BatchClaims.Completion(key("a"), value("1")),
        new BatchClaims.Completion(key("c"), value("3")),
        new BatchClaims.Completion(key("b"), StoredOutcome.failure("x.Declined", "no", "{}"))), o, LONG);
    assertThat(recorded).containsExactly(true, false, true);
    assertValue(store.find(key("a")).orElseThrow().outcome(), "1");
    assertThat(store.find(key("b")).orElseThrow().outcome().kind()).isEqualTo(StoredOutcome.Kind.FAILURE);
    assertThat(store.find(key("c")).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
  }

  /** A consumer's message: its id is the key, its body the payload. */
  private record Message(String id, String body) {}

  /** A final business outcome of a message. */
  private static final class Declined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Declined(String message) {
      super(message);
    }
  }

  @Test
  void engine_batch_runsEachKeyOnce_acrossAndInsideBatches_andSettlesEveryMessage() {
    Idempotency idempotency = engine();
    String ns = "batch-" + run;
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    AtomicInteger transientFailures = new AtomicInteger();
    IdempotentBatch.Handler<Message, String> handler = m -> {
      runs.computeIfAbsent(m.id(), id -> new AtomicInteger()).incrementAndGet();
      if (m.body().equals("declined")) {
        throw new Declined("declined " + m.id());
      }
      if (m.body().equals("flaky") && transientFailures.getAndIncrement() == 0) {
        throw new IllegalStateException("try again");
      }
      return "done " + m.id();
    };
    List<Message> first = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      first.add(new Message("m" + i, i == 7 ? "declined" : i == 9 ? "flaky" : "order"));
    }
    first.add(new Message("m3", "order")); // a duplicate inside the batch
    first.add(new Message("m4", "changed")); // a key reused with another payload
    List<BatchResult<String>> one = idempotency.batch(ns, String.class).finalExceptions(Declined.class)
        .run(first, Message::id, Message::body, handler);
    assertThat(one).hasSize(52);
    assertThat(one.get(0).value()).isEqualTo("done m0");
    assertThat(one.get(0).outcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(one.get(7).failure()).isInstanceOf(Declined.class);
    assertThat(one.get(7).settlement()).isEqualTo(Settlement.REJECT);
    assertThat(one.get(9).settlement()).isEqualTo(Settlement.REQUEUE);
    assertThat(one.get(50).replayed()).isTrue();
    assertThat(one.get(50).value()).isEqualTo("done m3");
    assertThat(one.get(51).failure()).isInstanceOf(io.idempotent.IdempotencyKeyReusedException.class);
    assertThat(one.get(51).settlement()).isEqualTo(Settlement.REJECT);
    assertThat(one).filteredOn(r -> r.settlement() == Settlement.ACK).hasSize(49);

    List<BatchResult<String>> again = idempotency.batch(ns, String.class).finalExceptions(Declined.class)
        .run(first.subList(0, 50), Message::id, Message::body, handler); // the whole batch redelivered
    assertThat(again.get(0).replayed()).isTrue();
    assertThat(again.get(0).value()).isEqualTo("done m0");
    assertThat(again.get(7).replayed()).isTrue();
    assertThat(again.get(7).failure()).isInstanceOf(Declined.class);
    assertThat(again.get(9).outcome()).as("its key was released: it ran again").isEqualTo(CallOutcome.EXECUTED);
    assertThat(again).filteredOn(r -> r.settlement() == Settlement.ACK).hasSize(49);
    assertThat(runs).hasSize(50);
    assertThat(runs.entrySet()).allSatisfy(e -> assertThat(e.getValue().get())
        .as(e.getKey()).isEqualTo(e.getKey().equals("m9") ? 2 : 1));
  }

  @Test
  void engine_batchesOfOverlappingKeysOnManyThreads_runEachKeyOnce_andRequeueWhatIsInProgress() throws Exception {
    Idempotency idempotency = engine();
    String ns = "batches-" + run;
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    AtomicInteger unsettled = new AtomicInteger();
    concurrently(4, () -> {
      for (int round = 0; round < 20; round++) {
        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
          batch.add(new Message("m" + (round * 10 + i), "order"));
        }
        List<BatchResult<String>> results = idempotency.batch(ns, String.class).run(batch, Message::id,
            Message::body, m -> {
              runs.computeIfAbsent(m.id(), id -> new AtomicInteger()).incrementAndGet();
              return m.id();
            });
        for (BatchResult<String> r : results) {
          if (r.settlement() == Settlement.ACK) {
            assertThat(r.value()).isEqualTo(batch.get(r.index()).id());
          } else {
            assertThat(r.settlement()).isEqualTo(Settlement.REQUEUE);
            assertThat(r.failure()).isInstanceOf(io.idempotent.IdempotencyInProgressException.class);
            unsettled.incrementAndGet();
          }
        }
      }
      return null;
    });
    assertThat(runs.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
    assertThat(runs).hasSize(215);
  }

  @Test
  void mono_burstOfWaitingDuplicates_runsOnce_withEveryStoreCallOnTheStoreScheduler() {
    assumeReactor();
    MonoChecks.burstOfWaitingDuplicates(store, "mono-burst-" + run);
  }

  @Test
  void mono_callCancelledWhileItRuns_isRecordedWhenItEnds_aFailedOneReleasesItsKey() throws Exception {
    assumeReactor();
    MonoChecks.cancelledThenRecorded_failedThenReleased(store, "mono-ends-" + run);
  }

  private static void assumeReactor() {
    org.junit.jupiter.api.Assumptions.assumeTrue(MonoChecks.reactorPresent(),
        "Reactor is not on the test class path: the contract's Mono calls are skipped");
  }
}
