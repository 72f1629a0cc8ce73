package io.idempotent.examples.rabbitmq;

import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/** Waits for a condition that other threads or processes make true, failing with what it saw last. */
final class Eventually {

  private Eventually() {}

  /** Polls {@code condition} every 20 ms until it holds; fails after {@code timeout} with {@code state}. */
  static void await(String what, Duration timeout, Callable<Boolean> condition, Supplier<String> state)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.call()) {
      if (System.nanoTime() > deadline) {
        fail("Not within " + timeout + ": " + what + "; " + state.get());
      }
      Thread.sleep(20);
    }
  }
}
