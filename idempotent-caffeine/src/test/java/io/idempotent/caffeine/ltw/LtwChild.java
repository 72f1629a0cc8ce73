package io.idempotent.caffeine.ltw;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyEvent;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The program {@link LoadTimeWeavingTest} starts in a JVM of its own: it drives the {@link LtwOrders}
 * class named by its first argument and prints what happened as {@code name=value} lines, which the
 * test reads. With a second argument {@code first-call} it stops after the first protected call (the
 * start-up measurement).
 */
public final class LtwChild {

  private LtwChild() {}

  public static void main(String[] args) throws Exception {
    Map<IdempotencyEvent.Type, AtomicInteger> events = new ConcurrentHashMap<>();
    Idempotency.install(IdempotencyConfig.builder()
        .store(new CaffeineIdempotencyStore())
        .listener(e -> events.computeIfAbsent(e.type(), t -> new AtomicInteger()).incrementAndGet())
        .build());
    LtwOrders orders = (LtwOrders) Class.forName(args[0]).getDeclaredConstructor().newInstance();

    long start = System.nanoTime();
    Object first = orders.charge("order-1", 1999);
    long firstCall = System.nanoTime() - start;
    print("firstCallMicros", firstCall / 1_000);
    if (args.length > 1 && args[1].equals("first-call")) {
      System.exit(0);
    }

    Object replayed = orders.charge("order-1", 1999);
    print("replayOutcome", Idempotency.lastOutcome());
    print("charges", orders.charges());
    print("equalAfterReplay", first.equals(replayed));
    print("resultClass", replayed.getClass().getName());

    print("refundResult", orders.refundTwice("order-2"));
    print("refunds", orders.refunds());

    String reused;
    try {
      orders.charge("order-1", 2500);
      reused = "ran";
    } catch (IdempotencyKeyReusedException e) {
      reused = "refused";
    }
    print("reusedKey", reused);
    print("chargesAfterReuse", orders.charges());

    Map<String, Integer> sorted = new TreeMap<>();
    events.forEach((type, n) -> sorted.put(type.name(), n.get()));
    print("events", sorted);

    String validation;
    try {
      Idempotency.validate(orders.getClass());
      validation = "ok";
    } catch (IdempotencyConfigurationException e) {
      validation = e.getMessage().replace('\n', ' ');
    }
    print("validate", validation);
    System.exit(0);
  }

  private static void print(String name, Object value) {
    System.out.println(name + "=" + value);
    System.out.flush();
  }
}
