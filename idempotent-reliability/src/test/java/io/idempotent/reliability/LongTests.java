package io.idempotent.reliability;

import org.junit.jupiter.api.Assumptions;

/**
 * The multi-process tests take minutes, so they run only when {@code idempotent.longTests=true}
 * ({@code .ci/run} sets it); otherwise they are skipped with this explanation.
 */
final class LongTests {

  static final String PROPERTY = "idempotent.longTests";

  private LongTests() {}

  static void require() {
    if (!Boolean.getBoolean(PROPERTY)) {
      String why = "Skipped: long multi-process test; run with -D" + PROPERTY + "=true (as .ci/run does)";
      System.err.println("[idempotent-reliability] " + why); // surefire shows skips without their reason
      Assumptions.abort(why);
    }
  }
}
