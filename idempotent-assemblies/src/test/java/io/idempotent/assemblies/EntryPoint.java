package io.idempotent.assemblies;

/** How the application reaches the idempotent business method: each value is a fixture of its own. */
enum EntryPoint {
  /** A woven {@code @Idempotent} method called directly ({@link Payments}). */
  WOVEN_METHOD("woven method"),
  /** {@code Idempotency.call(…)} around the same body, effects declared with {@code IdempotentCall.effects}. */
  PROGRAMMATIC_CALL("programmatic call"),
  /** {@code IdempotencyFilter} on an embedded Jetty 12, in front of a servlet that runs the woven method. */
  HTTP_FILTER("filter"),
  /** A Spring {@code @Transactional} service in a real context, its {@code @Idempotent} methods self-invoked. */
  SPRING_SERVICE("Spring @Transactional service"),
  /** A no-argument job on two instances (a store and a pool each, one database), firing in the same period. */
  SCHEDULED_JOB("scheduled job on two instances"),
  /** A Spring {@code @EventListener} method, idempotent on the event's id; the same event is published again. */
  EVENT_LISTENER("@EventListener");

  final String label;

  EntryPoint(String label) {
    this.label = label;
  }
}
