package io.idempotent.reliability;

import io.idempotent.Idempotent;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Woven methods whose recorded outcomes the tampering tests rewrite in the table. Thread-safe. */
public class TamperTargets {

  static final String RECEIPT = "tamper.receipt";
  static final String ANYTHING = "tamper.anything";
  static final String DECLINE = "tamper.decline";

  /** The declared result type. */
  public record Receipt(String id, long cents) {}

  /** The declared final exception. */
  public static class Declined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Declined(String message) {
      super(message);
    }
  }

  final AtomicInteger runs = new AtomicInteger();

  @Idempotent(key = "#id", scope = "#run", name = RECEIPT)
  public Receipt receipt(String run, String id) {
    runs.incrementAndGet();
    return new Receipt(id, 1250);
  }

  @Idempotent(key = "#id", scope = "#run", name = ANYTHING)
  public Object anything(String run, String id) {
    runs.incrementAndGet();
    return Map.of("id", id);
  }

  @Idempotent(key = "#id", scope = "#run", name = DECLINE, finalExceptions = Declined.class)
  public Receipt decline(String run, String id) {
    runs.incrementAndGet();
    throw new Declined("card declined");
  }
}
