package io.idempotent.examples.shop;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake warehouse: reserves stock for orders and ships them, counting both. It can be told to be
 * unavailable for the next few reservations, to show a transient failure. Thread-safe.
 */
public final class Warehouse {

  private final Duration shippingTime;
  private final AtomicInteger outagesLeft = new AtomicInteger();
  private final AtomicInteger reservations = new AtomicInteger();
  private final AtomicInteger shipments = new AtomicInteger();
  private final Map<String, AtomicInteger> shipmentsByOrder = new ConcurrentHashMap<>();

  public Warehouse() {
    this(Duration.ZERO);
  }

  /** A warehouse whose every shipment takes {@code shippingTime}, so that redeliveries overlap. */
  public Warehouse(Duration shippingTime) {
    this.shippingTime = shippingTime;
  }

  /** The next {@code times} reservations fail with {@link ServiceUnavailableException}. */
  public void failNextReservations(int times) {
    outagesLeft.set(times);
  }

  /** Reserves stock for {@code orderId}. */
  public void reserve(String orderId) {
    if (outagesLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new ServiceUnavailableException("Warehouse unavailable, try again");
    }
    reservations.incrementAndGet();
  }

  /** Ships {@code orderId}: a parcel leaves the building. */
  public void ship(String orderId) {
    Pause.of(shippingTime);
    shipments.incrementAndGet();
    shipmentsByOrder.computeIfAbsent(orderId, o -> new AtomicInteger()).incrementAndGet();
  }

  public int reservations() {
    return reservations.get();
  }

  public int shipments() {
    return shipments.get();
  }

  public int shipmentsOf(String orderId) {
    AtomicInteger n = shipmentsByOrder.get(orderId);
    return n == null ? 0 : n.get();
  }
}
