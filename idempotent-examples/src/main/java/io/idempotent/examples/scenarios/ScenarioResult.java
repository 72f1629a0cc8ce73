package io.idempotent.examples.scenarios;

/**
 * What one scenario counted. Every number is counted while the scenario runs: calls by the caller,
 * executions inside the method body, absorbed calls by the library's events, side effects by the fake
 * external system. Immutable.
 *
 * @param calls calls made by clients, schedulers, brokers or providers
 * @param executions how many times the protected code ran
 * @param absorbed calls that did not run it: replayed, skipped, or refused
 * @param sideEffects effects counted on the external system
 * @param sideEffect what one effect is, singular ({@code "gateway charge"})
 * @param how what the callers saw, in a few words
 */
public record ScenarioResult(String id, String title, long calls, long executions, long absorbed,
    long sideEffects, String sideEffect, String how) {

  /** The side effects with their unit: {@code "1 gateway charge"}, {@code "3 emails"}. */
  public String sideEffectsText() {
    return sideEffects + " " + (sideEffects == 1 ? sideEffect : sideEffect + "s");
  }
}
