package io.idempotent.spi;

/** State of a stored idempotency record. */
public enum RecordState {
  /** Claimed by an owner whose call is still running, until its lease deadline. */
  IN_PROGRESS,
  /** The call finished; its outcome is replayed until the record's expiry. */
  COMPLETED
}
