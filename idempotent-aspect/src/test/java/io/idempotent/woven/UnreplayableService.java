package io.idempotent.woven;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/** A woven service whose results or final exceptions could not come back from a store. */
public class UnreplayableService {

  /** Jackson writes it, but stored JSON never says which class to build. */
  public interface Quote {
    long cents();
  }

  record Fixed(long cents) implements Quote {}

  /** No constructor a replay could call. */
  public static class Refusal extends RuntimeException {
    public Refusal(int a, int b) {
      super("refused " + a + b);
    }
  }

  final AtomicInteger runs = new AtomicInteger();

  @Idempotent(key = "#p0")
  public Quote quote(String id) {
    runs.incrementAndGet();
    return new Fixed(5);
  }

  @Idempotent(key = "#p0", finalExceptions = Refusal.class)
  public String refuse(String id) {
    runs.incrementAndGet();
    return "ran";
  }
}
