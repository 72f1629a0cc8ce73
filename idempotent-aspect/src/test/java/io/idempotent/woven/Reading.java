package io.idempotent.woven;

/** Equal state, but a getter that reads a clock: it must not make retries look like other arguments. */
public class Reading {

  private final String sensor;
  private final double value;

  public Reading(String sensor, double value) {
    this.sensor = sensor;
    this.value = value;
  }

  public String getSensor() {
    return sensor;
  }

  public double getValue() {
    return value;
  }

  public long getReadAt() {
    return System.nanoTime();
  }
}
