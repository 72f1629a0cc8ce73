package io.idempotent.http;

/** Whether a route's requests must carry an {@code Idempotency-Key}. */
public enum KeyRequirement {
  /** A request without the header is refused with 400. */
  REQUIRED,
  /** A request without the header runs unprotected; one with it runs at most once per key. */
  OPTIONAL
}
