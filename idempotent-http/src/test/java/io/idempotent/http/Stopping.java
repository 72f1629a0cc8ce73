package io.idempotent.http;

/** Stops what a test started, without a checked exception: a test's resources then close in try-with-resources cleanly. */
final class Stopping {

  /** A step that may throw anything, such as stopping a server. */
  interface Step {
    void run() throws Exception;
  }

  private Stopping() {}

  /** Runs {@code step}; a checked failure is rethrown unchecked, an interrupt is kept for the caller. */
  static void unchecked(Step step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("Could not stop: " + e, e);
    }
  }
}
