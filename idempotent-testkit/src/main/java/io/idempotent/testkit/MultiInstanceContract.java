package io.idempotent.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyTokenException;
import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.OneTimeTokens;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The contract of a store shared by several application instances: each instance has its own store object,
 * with its own client or connection pool, over the same backing data (one table, one Redis database and
 * prefix). Whatever one instance claims, completes or releases, every other sees, and the backing data alone
 * decides who runs a key. A store's test is a small subclass that says how to open one more instance:
 *
 * <pre>{@code
 * class PostgresMultiInstanceTest extends MultiInstanceContract {
 *   protected IdempotencyStore createInstance() {
 *     // skip the test (Assumptions.assumeTrue) when the server is not reachable
 *     return MyStore.connect(POSTGRES_URL, ...); // a new pool each time, the same table
 *   }
 * }
 * }</pre>
 *
 * Keys are unique per test, so instances over a shared table need no cleaning between tests. Every instance
 * a test opened is closed after it through {@link #closeInstance}.
 */
public abstract class MultiInstanceContract {

  /** Long enough never to run out during a test. */
  protected static final Duration LONG = Duration.ofMinutes(10);

  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final List<IdempotencyStore> opened = new ArrayList<>();

  /**
   * A new store instance as another application instance would open it: a client or pool of its own, over
   * the same backing data as every other instance this test opens. Skip the test here when the server is
   * not there.
   */
  protected abstract IdempotencyStore createInstance() throws Exception;

  /** Closes what {@link #createInstance()} opened; by default {@link IdempotencyStore#close()}. */
  protected void closeInstance(IdempotencyStore store) throws Exception {
    store.close();
  }

  /** How many instances the concurrent test runs at once. */
  protected int instances() {
    return 3;
  }

  /** How many threads each instance sends calls from in the concurrent test. */
  protected int threadsPerInstance() {
    return 6;
  }

  /** How many distinct keys the concurrent test sends. */
  protected int keys() {
    return 300;
  }

  /** How often each instance sends each key in the concurrent test. */
  protected int copiesPerInstance() {
    return 2;
  }

  /** Opens one more instance, to be closed after the test. */
  protected final IdempotencyStore openInstance() throws Exception {
    IdempotencyStore store = createInstance();
    synchronized (opened) {
      opened.add(store);
    }
    return store;
  }

  @AfterEach
  void closeInstances() throws Exception {
    List<IdempotencyStore> toClose;
    synchronized (opened) {
      toClose = new ArrayList<>(opened);
      opened.clear();
    }
    for (IdempotencyStore store : toClose) {
      closeInstance(store);
    }
  }

  /** A key no other test run uses. */
  protected String key(String name) {
    return "multi:" + run + ":" + name;
  }

  private static String owner() {
    return UUID.randomUUID().toString();
  }

  private static Idempotency engine(IdempotencyStore store) {
    return Idempotency.create(
        IdempotencyConfig.builder().store(store).defaultWaitTimeout(Duration.ofMinutes(1)).build());
  }

  @Test
  void claimOnOneInstance_isInProgressOnTheOther_whichCannotCompleteRenewOrReleaseIt() throws Exception {
    IdempotencyStore first = openInstance();
    IdempotencyStore second = openInstance();
    String k = key("claimed");
    String owner = owner();
    assertThat(first.claim(k, "fp-1", owner, LONG).claimed()).isTrue();
    ClaimResult seen = second.claim(k, "fp-2", owner(), LONG);
    assertThat(seen.claimed()).isFalse();
    assertThat(seen.existing().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(seen.existing().fingerprint()).isEqualTo("fp-1");
    assertThat(second.complete(k, owner(), StoredOutcome.valueJson("\"intruder\""), LONG)).isFalse();
    assertThat(second.renew(k, owner(), LONG)).isFalse();
    assertThat(second.release(k, owner())).isFalse();
    assertThat(second.find(k).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
  }

  @Test
  void outcomeCompletedOnOneInstance_isReplayedOnTheOther() throws Exception {
    IdempotencyStore first = openInstance();
    IdempotencyStore second = openInstance();
    String k = key("completed");
    String owner = owner();
    first.claim(k, "fp", owner, LONG);
    assertThat(second.renew(k, owner, LONG)).as("the owner's token is what counts, not the instance").isTrue();
    assertThat(first.complete(k, owner, StoredOutcome.valueJson("{\"receipt\":\"r-42\"}"), LONG)).isTrue();
    ClaimResult again = second.claim(k, "fp", owner(), LONG);
    assertThat(again.claimed()).isFalse();
    assertThat(again.existing().state()).isEqualTo(RecordState.COMPLETED);
    assertThat(again.existing().outcome().json()).isEqualTo("{\"receipt\":\"r-42\"}");
  }

  @Test
  void keyReleasedOnOneInstance_isClaimedAgainOnTheOther() throws Exception {
    IdempotencyStore first = openInstance();
    IdempotencyStore second = openInstance();
    String k = key("released");
    String owner = owner();
    first.claim(k, "fp", owner, LONG);
    assertThat(first.release(k, owner)).isTrue();
    assertThat(second.find(k)).isEmpty();
    assertThat(second.claim(k, "fp", owner(), LONG).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
  }

  @Test
  void tokenIssuedOnOneInstance_isConsumedOnceAcrossAll() throws Exception {
    String form = "form-" + run;
    OneTimeTokens issuing = engine(openInstance()).tokens(form);
    OneTimeTokens other = engine(openInstance()).tokens(form);
    String token = issuing.issue(LONG);
    other.consume(token);
    assertThatThrownBy(() -> issuing.consume(token)).isInstanceOf(IdempotencyTokenException.class)
        .extracting(e -> ((IdempotencyTokenException) e).reason())
        .isEqualTo(IdempotencyTokenException.Reason.ALREADY_USED);
  }

  /**
   * Every instance sends every key several times from several threads at once: each key runs exactly once,
   * every call gets that run's result, and every other call is a replay.
   */
  @Test
  void instancesHammeringTheSameKeys_executeEachKeyOnce() throws Exception {
    int instances = instances();
    int threadsPerInstance = threadsPerInstance();
    int keys = keys();
    int copies = copiesPerInstance();
    String ns = "multi-" + run;
    Map<Integer, AtomicInteger> executions = new ConcurrentHashMap<>();
    AtomicInteger wrong = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger replayed = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(instances * threadsPerInstance);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < instances; i++) {
        Idempotency instance = engine(openInstance());
        List<Integer> work = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
          for (int c = 0; c < copies; c++) {
            work.add(k);
          }
        }
        Collections.shuffle(work, new Random(i));
        AtomicInteger next = new AtomicInteger();
        for (int t = 0; t < threadsPerInstance; t++) {
          futures.add(threads.submit(() -> {
            start.await();
            for (int w = next.getAndIncrement(); w < work.size(); w = next.getAndIncrement()) {
              int k = work.get(w);
              CallResult<String> r = instance.call(ns, String.class).key("k" + k).payload(k)
                  .onInProgress(OnInProgress.WAIT)
                  .execute(() -> {
                    executions.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
                    return "result-" + k;
                  });
              if (!("result-" + k).equals(r.value())) {
                wrong.incrementAndGet();
              }
              if (r.replayed()) {
                replayed.incrementAndGet();
              }
              answered.incrementAndGet();
            }
            return null;
          }));
        }
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      threads.shutdownNow();
    }
    int calls = instances * keys * copies;
    assertThat(wrong).as("calls that got another key's result").hasValue(0);
    assertThat(answered).hasValue(calls);
    assertThat(replayed).as("calls answered by a replay").hasValue(calls - keys);
    assertThat(executions).hasSize(keys);
    assertThat(executions.values()).allSatisfy(n -> assertThat(n.get()).as("executions per key").isEqualTo(1));
  }
}
