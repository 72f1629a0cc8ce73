package io.idempotent.internal;

import io.idempotent.IdempotencyConfigurationException;

/**
 * An argument value could not be fingerprinted: it has no value identity, or its object graph has a
 * cycle or is too deep. Carries where it happened so that the caller, which knows the method and
 * its parameters, can say so. Thrown before anything is claimed, so the method has not run.
 */
public final class FingerprintException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Object[] values;
  private final String problem;
  private int argumentIndex = -1;
  private String path = "";
  /** For a cycle: how many trailing characters of the path lead from the repeated object to the cycle. */
  private int cycleSuffix = -1;
  private int cycleDepth = -1;

  FingerprintException(String problem) {
    this(problem, null);
  }

  private FingerprintException(String problem, Object[] values) {
    super(problem, null, false, false); // control flow to a clear message: no stack trace to fill in
    this.problem = problem;
    this.values = values;
  }

  static FingerprintException cycle(int depth) {
    FingerprintException e = new FingerprintException("the object graph has a cycle");
    e.cycleDepth = depth;
    return e;
  }

  /** Called by each enclosing object or collection while the exception travels out. */
  FingerprintException within(String segment, int depth) {
    path = segment + path;
    if (depth == cycleDepth) {
      cycleSuffix = path.length();
    }
    return this;
  }

  FingerprintException ofArgument(Object[] argumentValues, int index) {
    FingerprintException e = new FingerprintException(problem, argumentValues);
    e.argumentIndex = index;
    e.path = path;
    e.cycleSuffix = cycleSuffix;
    e.cycleDepth = cycleDepth;
    return e;
  }

  /** Whether this exception is about the given argument array (and not one of a nested call). */
  public boolean isAbout(Object[] argumentValues) {
    return values == argumentValues;
  }

  public int argumentIndex() {
    return argumentIndex;
  }

  /** The path inside the argument, such as {@code .customer.addresses[0]}; empty for the argument itself. */
  public String path() {
    return path;
  }

  public String problem() {
    if (cycleSuffix < 0) {
      return problem;
    }
    String target = path.substring(0, path.length() - cycleSuffix);
    return problem + ": it refers back to " + (target.isEmpty() ? "the argument itself" : target);
  }

  /**
   * The error to report for a call described by {@code description}, whose argument is known as
   * {@code label} (such as {@code parameter 'order'}) and rooted at {@code root} in paths;
   * {@code leaveOut} says how to leave a value out of the payload.
   */
  public IdempotencyConfigurationException toConfigurationError(
      String description, String label, String root, String leaveOut) {
    String where = path.isEmpty() ? "" : " at " + root + path;
    String problemText = problem();
    if (cycleSuffix >= 0) {
      String target = path.substring(0, path.length() - cycleSuffix);
      problemText = problem + ": " + root + path + " refers back to " + root + target;
    }
    return new IdempotencyConfigurationException(
        "Cannot fingerprint " + label + " of " + description + where + ": " + problemText
            + ". Leave it out (" + leaveOut + ", or make the field transient) or pass a value that identifies"
            + " it; the method did not run");
  }
}
