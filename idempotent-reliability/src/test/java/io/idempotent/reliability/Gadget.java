package io.idempotent.reliability;

/**
 * Stands for a deserialization gadget: a class that does something when it is loaded, built or
 * populated. Tampered rows name it; the tests assert that it is never initialised nor constructed.
 */
public class Gadget {

  static {
    GadgetCounters.INITIALISED.incrementAndGet();
  }

  public Gadget() {
    GadgetCounters.CONSTRUCTED.incrementAndGet();
  }

  public void setCommand(String command) {
    GadgetCounters.CONSTRUCTED.incrementAndGet();
  }
}
