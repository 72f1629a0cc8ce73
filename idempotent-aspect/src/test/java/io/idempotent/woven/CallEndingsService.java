package io.idempotent.woven;

import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A woven service for how calls end: re-entrant, interrupted, asynchronous and refused calls. */
public class CallEndingsService {

  final AtomicInteger runs = new AtomicInteger();
  final CountDownLatch started = new CountDownLatch(1);
  final CountDownLatch proceed = new CountDownLatch(1);

  /** Calls itself once with the same key from inside; the inner call's exception is returned, not thrown. */
  @Idempotent(key = "#orderId", payload = "#orderId", onInProgress = OnInProgress.WAIT, waitTimeout = "PT30S")
  public String reenter(String orderId, boolean inner) {
    runs.incrementAndGet();
    if (inner) {
      return "inner ran";
    }
    try {
      return reenter(orderId, true);
    } catch (RuntimeException e) {
      return "inner refused: " + e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  @Idempotent(key = "#orderId", onInProgress = OnInProgress.WAIT, waitTimeout = "PT30S")
  public String slow(String orderId) throws InterruptedException {
    runs.incrementAndGet();
    started.countDown();
    if (!proceed.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("test latch never opened");
    }
    return "done " + orderId;
  }

  @Idempotent(key = "#orderId", finalExceptions = Declined.class)
  public CompletionStage<String> declineAtOnce(String orderId) {
    runs.incrementAndGet();
    throw new Declined("declined " + orderId);
  }

  @Idempotent(key = "#orderId")
  public CompletableFuture<String> nullStage(String orderId) {
    runs.incrementAndGet();
    return null;
  }

  @Idempotent(key = "#order.orderId")
  public String keyOf(Order order) {
    runs.incrementAndGet();
    return "ok";
  }

  @Idempotent(key = "#orderId", payload = "#orderId")
  public Unencodable unencodable(String orderId, CallEndingsService nested) {
    runs.incrementAndGet();
    nested.plain("nested-" + orderId);
    return new Unencodable(List.of(orderId));
  }

  @Idempotent(key = "#orderId")
  public String plain(String orderId) {
    runs.incrementAndGet();
    return "plain " + orderId;
  }

  /** A result the fixture's codec refuses to encode. */
  public record Unencodable(List<String> items) {}

  /** An order whose id accessor throws. */
  public static final class Order {
    private final String id;

    public Order(String id) {
      this.id = id;
    }

    public String orderId() {
      if (id == null) {
        throw new IllegalStateException("order has no id yet");
      }
      return id;
    }
  }
}
