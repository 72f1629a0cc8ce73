package io.idempotent.assemblies;

/** The caller's own failure after the call returned: its transaction rolls back. Carries what the call returned. */
public final class CallerFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final transient Answer.Returned returned;

  CallerFailure(Answer.Returned returned) {
    super("the caller fails after the call returned");
    this.returned = returned;
  }

  /** {@code returned}, unless the run has the caller fail now: then its transaction rolls back. */
  static Answer.Returned orFailNow(Answer.Returned returned) {
    if (CellRun.current().callerFailsNow()) {
      throw new CallerFailure(returned);
    }
    return returned;
  }
}
