package io.idempotent;

/**
 * The value an idempotent call returned and how it was produced. Immutable.
 *
 * @param value the result (null for void, null results and skipped calls)
 * @param outcome whether the method ran, was replayed or skipped
 */
public record CallResult<T>(T value, CallOutcome outcome) {

  /** True when the value is a recorded outcome and the method did not run on this call. */
  public boolean replayed() {
    return outcome == CallOutcome.REPLAYED;
  }
}
