package io.idempotent.examples.shop;

import java.time.Duration;

/** Stands in for the time real work takes (a network call, a batch job). */
final class Pause {

  private Pause() {}

  static void of(Duration d) {
    if (d.isZero()) {
      return;
    }
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
