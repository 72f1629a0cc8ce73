package io.idempotent.assemblies;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyInProgressException;
import java.sql.SQLException;

/** What one attempt of a caller came back with. */
sealed interface Answer {

  /** The call returned (or replayed) {@code value}; {@code outcome} is how it ended. */
  record Returned(Object value, CallOutcome outcome) implements Answer {}

  /** Refused before the method ran. */
  record Refused(Throwable refusal) implements Answer {}

  /** The method's own failure reached the caller. */
  record BusinessFailed() implements Answer {}

  /** The call returned {@code returned}, then the caller failed and rolled back. */
  record CallerRolledBack(Returned returned) implements Answer {}

  /** Nothing to keep: the key is in progress, or the transaction failed to serialize; the caller tries again. */
  record Retry(String why) implements Answer {}

  /** Anything else: the cell fails. */
  record Unexpected(String what, Throwable cause) implements Answer {}

  /** What {@code thrown} by an attempt means to the caller that made it. */
  static Answer of(Throwable thrown) {
    if (thrown instanceof CallerFailure f) {
      return new CallerRolledBack(f.returned);
    }
    if (thrown instanceof BusinessFailure) {
      return new BusinessFailed();
    }
    if (thrown instanceof IdempotencyConfigurationException) {
      return new Refused(thrown);
    }
    if (thrown instanceof IdempotencyInProgressException) {
      return new Retry("in progress");
    }
    if (serializationFailure(thrown)) {
      return new Retry("serialization failure");
    }
    return new Unexpected(thrown.toString(), thrown);
  }

  /** A serialization failure or deadlock (SQLState class 40) anywhere in the chain: the transaction rolled back. */
  static boolean serializationFailure(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null && s.getSQLState().startsWith("40")) {
        return true;
      }
    }
    return false;
  }
}
