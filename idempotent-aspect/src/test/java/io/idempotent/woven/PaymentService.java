package io.idempotent.woven;

import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A woven service: every annotated method counts its executions per key. */
public class PaymentService {

  final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  volatile CountDownLatch started = new CountDownLatch(1);
  volatile CountDownLatch proceed = new CountDownLatch(0);
  volatile RuntimeException nextFailure;

  int runs(String key) {
    AtomicInteger n = runs.get(key);
    return n == null ? 0 : n.get();
  }

  private void ran(String key) {
    runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    started.countDown();
    try {
      if (!proceed.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("test latch never opened");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    RuntimeException f = nextFailure;
    if (f != null) {
      nextFailure = null;
      throw f;
    }
  }

  @Idempotent(key = "#orderId", ttl = "PT1H")
  public Receipt charge(String orderId, long amount) {
    ran(orderId);
    return new Receipt(orderId, amount, Instant.parse("2026-12-02T10:15:30Z"));
  }

  @Idempotent(key = "'refund:' + #order.orderId", scope = "#tenant", name = "payments.refund")
  public String refund(String tenant, Receipt order) {
    ran(tenant + "/" + order.orderId());
    return "refunded " + order.orderId() + " for " + tenant;
  }

  @Idempotent(key = "#p0", finalExceptions = Declined.class)
  public Receipt chargeCard(String orderId, long amount) {
    ran(orderId);
    if (amount > 1000) {
      throw new Declined("limit exceeded");
    }
    return new Receipt(orderId, amount, Instant.EPOCH);
  }

  @Idempotent(key = "#orderId")
  public String checked(String orderId) throws IOException {
    ran(orderId);
    throw new IOException("gateway timeout");
  }

  @Idempotent(key = "#orderId", onInProgress = OnInProgress.WAIT, waitTimeout = "PT10S")
  public Receipt chargeAndWait(String orderId, long amount) {
    ran(orderId);
    return new Receipt(orderId, amount, Instant.EPOCH);
  }

  @Idempotent(key = "#orderId", onInProgress = OnInProgress.WAIT, waitTimeout = "PT0.3S")
  public Receipt chargeWaitBriefly(String orderId) {
    ran(orderId);
    return new Receipt(orderId, 1, Instant.EPOCH);
  }

  @Idempotent(key = "'settlement:' + #day", onInProgress = OnInProgress.SKIP)
  public void settle(String day) {
    ran(day);
  }

  @Idempotent(key = "#day", onInProgress = OnInProgress.SKIP)
  public Optional<String> report(String day) {
    ran(day);
    return Optional.of("report " + day);
  }

  @Idempotent(key = "#key")
  public List<Receipt> list(String key) {
    ran(key);
    return List.of(new Receipt(key, 1, Instant.EPOCH), new Receipt(key, 2, Instant.EPOCH));
  }

  @Idempotent(key = "#key")
  public Map<String, Integer> map(String key) {
    ran(key);
    return Map.of("a", 1, "b", 2);
  }

  @Idempotent(key = "#key")
  public Optional<Receipt> find(String key, boolean present) {
    ran(key);
    return present ? Optional.of(new Receipt(key, 3, Instant.EPOCH)) : Optional.empty();
  }

  @Idempotent(key = "#key")
  public String nothing(String key) {
    ran(key);
    return null;
  }

  @Idempotent(key = "#key")
  public int count(String key) {
    ran(key);
    return 7;
  }

  @Idempotent(key = "#key")
  public void record(String key) {
    ran(key);
  }

  @Idempotent(key = "#key", lease = "PT3S", payload = "#key")
  public CompletionStage<Receipt> chargeAsync(String key, CompletableFuture<Long> amount) {
    ran(key);
    return amount.thenApply(a -> new Receipt(key, a, Instant.EPOCH));
  }

  /** Runs until the test opens {@link #proceed}, on a lease of 0.3 s. */
  @Idempotent(key = "#key", lease = "PT3S")
  public String slow(String key) {
    ran(key);
    return "done " + key;
  }

  @Idempotent(key = "#key", onInProgress = OnInProgress.SKIP, payload = "#key")
  public CompletionStage<String> asyncJob(String key, CompletableFuture<String> gate) {
    ran(key);
    return gate;
  }

  /** Public entry that reaches a private idempotent method through a self-call. */
  public String placeOrder(String orderId) {
    return reserveStock(orderId) + "+" + reserveStock(orderId);
  }

  @Idempotent(key = "'stock:' + #orderId")
  private String reserveStock(String orderId) {
    ran("stock:" + orderId);
    return "reserved " + orderId;
  }

  /** An idempotent method that calls another: both keys are independent. */
  @Idempotent(key = "'checkout:' + #orderId")
  public String checkout(String orderId, long amount) {
    ran("checkout:" + orderId);
    Receipt r = charge(orderId, amount);
    return "checked out " + r.orderId();
  }

  @Idempotent(key = "#orderId", checkPayload = false)
  public String noPayloadCheck(String orderId, long amount) {
    ran(orderId);
    return orderId + ":" + amount;
  }

  @Idempotent(key = "#orderId", payload = {"#amount"})
  public String payloadAmountOnly(String orderId, long amount, String note) {
    ran(orderId);
    return orderId + ":" + amount;
  }

  @Idempotent(key = "#orderId", store = "secondary")
  public String onSecondary(String orderId) {
    ran(orderId);
    return "secondary " + orderId;
  }
}
