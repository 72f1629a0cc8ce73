package com.example.docs.usage;

/** A money type of the application's own, which Jackson learns through {@link MoneyModule}. */
public final class Money {
  private final long cents;

  public Money(long cents) {
    this.cents = cents;
  }

  public long cents() {
    return cents;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Money m && m.cents == cents;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(cents);
  }
}
