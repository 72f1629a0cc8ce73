package io.idempotent.benchmarks;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Handle;

/**
 * Business methods that write to the database or take time, woven like {@link Charges}. Only the order
 * id and amount are fingerprinted: the handle is not an argument value. Thread-safe.
 */
public class Orders {

  final AtomicLong executions = new AtomicLong();

  /** Inserts an order on the caller's handle (inside the caller's transaction). */
  public Receipt placePlain(Handle h, String orderId, long cents) {
    executions.incrementAndGet();
    h.execute("INSERT INTO " + SqlRig.ORDERS + " (id, cents) VALUES (?, ?)", orderId, cents);
    return Receipt.of(orderId, cents);
  }

  @Idempotent(key = "#orderId", name = "bench.place", payload = {"#orderId", "#cents"})
  public Receipt place(Handle h, String orderId, long cents) {
    return placePlain(h, orderId, cents);
  }

  /** As {@link #place}, recorded on its own beside the caller's transaction (a store mode that does not join it). */
  @Idempotent(key = "#orderId", name = "bench.place", payload = {"#orderId", "#cents"}, effects = Effects.EXTERNAL)
  public Receipt placeOnItsOwn(Handle h, String orderId, long cents) {
    return placePlain(h, orderId, cents);
  }

  /** A slow call (a remote service, say): duplicates wait for its result. */
  @Idempotent(key = "#orderId", name = "bench.slow", onInProgress = OnInProgress.WAIT, waitTimeout = "PT30S")
  public Receipt slow(String orderId, long cents, long millis) throws InterruptedException {
    return slowPlain(orderId, cents, millis);
  }

  public Receipt slowPlain(String orderId, long cents, long millis) throws InterruptedException {
    executions.incrementAndGet();
    Thread.sleep(millis);
    return Receipt.of(orderId, cents);
  }
}
