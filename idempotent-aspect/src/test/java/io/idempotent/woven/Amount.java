package io.idempotent.woven;

/** A value with private state and no getters, as many domain classes are. */
public final class Amount {

  private final int cents;

  public Amount(int cents) {
    this.cents = cents;
  }

  @Override
  public String toString() {
    return cents + " cents";
  }
}
