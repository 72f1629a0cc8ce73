package io.idempotent.micrometer;

/**
 * The names of the meters, which {@link MicrometerIdempotency} publishes and the classes that record them
 * use.
 */
final class MeterNames {
  static final String CALLS = "idempotent.calls";
  static final String STORE_OPERATIONS = "idempotent.store.operations";
  static final String LEASE_TAKEOVERS = "idempotent.lease.takeovers";
  static final String LEASES_LOST = "idempotent.lease.lost";

  private MeterNames() {}
}
