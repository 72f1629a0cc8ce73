package io.idempotent.woven;

import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** A woven service whose methods return a Mono: each counts how often its body was assembled, per key. */
public class ReactiveOrders {

  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  /** What the next {@link #gated} call emits, once the test lets it. */
  final Sinks.One<Receipt> gate = Sinks.one();
  final AtomicInteger cancelled = new AtomicInteger();

  int runs(String key) {
    AtomicInteger n = runs.get(key);
    return n == null ? 0 : n.get();
  }

  private void ran(String key) {
    runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
  }

  @Idempotent(key = "#key")
  public Mono<Receipt> charge(String key, long amount) {
    ran(key);
    return Mono.fromSupplier(() -> new Receipt(key, amount, Instant.EPOCH));
  }

  @Idempotent(key = "#key")
  public Mono<Receipt> failsFirst(String key) {
    ran(key);
    return runs(key) == 1 ? Mono.error(new IllegalStateException("gateway timeout"))
        : Mono.just(new Receipt(key, 1, Instant.EPOCH));
  }

  @Idempotent(key = "#key")
  public Mono<Receipt> throwsBeforeItsMono(String key) {
    ran(key);
    if (runs(key) == 1) {
      throw new IllegalArgumentException("refused before any Mono");
    }
    return Mono.just(new Receipt(key, 2, Instant.EPOCH));
  }

  @Idempotent(key = "#key", finalExceptions = Declined.class)
  public Mono<Receipt> declined(String key) {
    ran(key);
    return Mono.error(new Declined("card declined for " + key));
  }

  @Idempotent(key = "#key")
  public Mono<Receipt> gated(String key) {
    ran(key);
    return gate.asMono().doOnCancel(cancelled::incrementAndGet);
  }

  @Idempotent(key = "#key", onInProgress = OnInProgress.WAIT, waitTimeout = "PT20S")
  public Mono<Receipt> gatedWaiting(String key) {
    ran(key);
    return gate.asMono();
  }

  @Idempotent(key = "#key", onInProgress = OnInProgress.SKIP)
  public Mono<Receipt> gatedSkipping(String key) {
    ran(key);
    return gate.asMono();
  }

  @Idempotent(key = "#key")
  public Mono<String> whoAsks(String key) {
    ran(key);
    return Mono.deferContextual(context -> Mono.just(context.getOrDefault("user", "nobody")));
  }

  @Idempotent(key = "#key")
  public Mono<List<String>> nothing(String key) {
    ran(key);
    return Mono.empty();
  }

  @Idempotent(key = "#key")
  public Flux<Receipt> stream(String key) {
    ran(key);
    return Flux.empty();
  }
}
