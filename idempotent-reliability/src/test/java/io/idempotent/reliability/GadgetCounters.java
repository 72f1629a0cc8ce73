package io.idempotent.reliability;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts how often the gadget classes were initialised or constructed. Kept apart from them, so that
 * reading a count does not itself initialise a gadget class.
 */
final class GadgetCounters {

  static final AtomicInteger INITIALISED = new AtomicInteger();
  static final AtomicInteger CONSTRUCTED = new AtomicInteger();

  private GadgetCounters() {}

  static int total() {
    return INITIALISED.get() + CONSTRUCTED.get();
  }
}
