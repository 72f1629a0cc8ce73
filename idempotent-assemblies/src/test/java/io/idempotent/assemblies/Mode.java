package io.idempotent.assemblies;

import io.idempotent.jdbi.TransactionMode;
import java.util.Locale;

/**
 * The table store's transaction modes, with what the decision table needs to know of each: whether the mode
 * takes an undeclared call as transactional (DESIGN §7: "{@code JOINED} and {@code JOINED_TRANSACTION_SCOPED}
 * take such a call as transactional").
 */
enum Mode {
  INDEPENDENT(TransactionMode.INDEPENDENT, false),
  JOINED(TransactionMode.JOINED, true),
  TRANSACTION_SCOPED(TransactionMode.TRANSACTION_SCOPED, false),
  JOINED_TRANSACTION_SCOPED(TransactionMode.JOINED_TRANSACTION_SCOPED, true);

  final TransactionMode transactionMode;
  final boolean takesUndeclaredAsTransactional;

  Mode(TransactionMode transactionMode, boolean takesUndeclaredAsTransactional) {
    this.transactionMode = transactionMode;
    this.takesUndeclaredAsTransactional = takesUndeclaredAsTransactional;
  }

  /** The value of {@code idempotent.jdbi.mode} that names it, as an application's properties would. */
  String property() {
    return transactionMode.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static Mode of(TransactionMode mode) {
    for (Mode m : values()) {
      if (m.transactionMode == mode) {
        return m;
      }
    }
    throw new IllegalArgumentException("The suite does not walk " + mode + ": add a Mode for it");
  }
}
