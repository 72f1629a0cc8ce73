package io.idempotent.reliability;

/** A throwable gadget: not a declared final exception of any method. Never initialised nor constructed. */
public class GadgetException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  static {
    GadgetCounters.INITIALISED.incrementAndGet();
  }

  public GadgetException(String message) {
    super(message);
    GadgetCounters.CONSTRUCTED.incrementAndGet();
  }
}
