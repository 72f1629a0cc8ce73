package io.idempotent.micrometer;

import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A woven service whose calls end every way a call can. Thread-safe. */
public class Orders {

  static final String PLACE = "orders.place";
  static final String SLOW = "orders.slow";

  final AtomicInteger runs = new AtomicInteger();
  /** Counted down when {@link #slow} has started; {@link #slow} returns once {@link #proceed} is counted down. */
  final CountDownLatch started = new CountDownLatch(1);
  final CountDownLatch proceed = new CountDownLatch(1);

  @Idempotent(key = "#orderId", name = PLACE)
  public String place(String orderId, long cents) {
    runs.incrementAndGet();
    return "order " + orderId + " for " + cents;
  }

  @Idempotent(key = "#orderId", name = "orders.decline")
  public String decline(String orderId) {
    runs.incrementAndGet();
    throw new IllegalStateException("declined " + orderId);
  }

  /** Holds its key until {@link #proceed} is counted down; a duplicate is refused. */
  @Idempotent(key = "#orderId", name = SLOW)
  public String slow(String orderId) throws InterruptedException {
    runs.incrementAndGet();
    started.countDown();
    if (!proceed.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the test never let the slow call go on");
    }
    return "slow " + orderId;
  }

  /** The same key as {@link #slow}; returns null without running while that call holds it. */
  @Idempotent(key = "#orderId", name = SLOW, onInProgress = OnInProgress.SKIP)
  public String slowOrSkip(String orderId) {
    runs.incrementAndGet();
    return "slow " + orderId;
  }

  /** The same key as {@link #slow}; waits for that call to end. */
  @Idempotent(key = "#orderId", name = SLOW, onInProgress = OnInProgress.WAIT, waitTimeout = "PT30S")
  public String slowOrWait(String orderId) {
    runs.incrementAndGet();
    return "slow " + orderId;
  }

  @Idempotent(key = "#orderId", name = "orders.fast", store = "fast")
  public String onTheFastStore(String orderId) {
    runs.incrementAndGet();
    return "fast " + orderId;
  }

  /** Tells which observation is current while the method runs, and observes some work of its own. */
  @Idempotent(key = "#orderId", name = "orders.traced", payload = "#orderId")
  public String traced(String orderId, ObservationRegistry observations) {
    runs.incrementAndGet();
    Observation current = observations.getCurrentObservation();
    Observation.createNotStarted("orders.inner", observations).observe(() -> { });
    return current == null ? "none" : current.getContext().getName();
  }

  @Idempotent(key = "#orderId", name = "orders.async", payload = "#orderId")
  public CompletableFuture<String> async(String orderId, CompletableFuture<String> result) {
    runs.incrementAndGet();
    return result;
  }
}
