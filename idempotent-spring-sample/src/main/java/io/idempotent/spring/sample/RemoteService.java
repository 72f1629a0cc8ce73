package io.idempotent.spring.sample;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for a remote service the shop calls (a payment provider, a notification service): it counts
 * the calls that went through, and can be told to fail the next few calls as an outage would. Thread-safe.
 */
public class RemoteService {

  private final String name;
  private final AtomicInteger succeeded = new AtomicInteger();
  private final AtomicInteger outage = new AtomicInteger();

  public RemoteService(String name) {
    this.name = name;
  }

  /** One call: fails with {@link TransientFailureException} during an outage, else goes through. */
  public int call() {
    if (outage.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new TransientFailureException(name + " did not answer");
    }
    return succeeded.incrementAndGet();
  }

  /** Makes the next {@code calls} calls fail. */
  public void failNext(int calls) {
    outage.set(calls);
  }

  /** How many calls went through. */
  public int succeeded() {
    return succeeded.get();
  }
}
