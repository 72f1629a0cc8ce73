package io.idempotent.assemblies;

import io.idempotent.Effects;

/** The event the listener pays for, one type per declaration of effects of the listener method. */
public sealed interface PaymentRequested {

  String id();

  /** Whether the listener's payment calls an inner idempotent method. */
  boolean nested();

  static PaymentRequested of(Effects effects, String id, boolean nested) {
    return switch (effects) {
      case UNDECLARED -> new Undeclared(id, nested);
      case TRANSACTIONAL -> new Transactional(id, nested);
      case EXTERNAL -> new External(id, nested);
    };
  }

  record Undeclared(String id, boolean nested) implements PaymentRequested {}

  record Transactional(String id, boolean nested) implements PaymentRequested {}

  record External(String id, boolean nested) implements PaymentRequested {}
}
