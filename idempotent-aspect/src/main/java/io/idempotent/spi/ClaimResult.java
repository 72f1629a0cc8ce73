package io.idempotent.spi;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** What {@link IdempotencyStore#claim} found. Immutable. */
public final class ClaimResult {

  /** The kind of claim result. */
  public enum Status {
    /** No live record existed; the caller now holds the key. */
    ACQUIRED,
    /** An expired IN_PROGRESS record (a dead owner's lease) was replaced; the caller now holds the key. An outcome past its TTL is simply absent: its replacement is {@link #ACQUIRED}. */
    TAKEN_OVER,
    /** A live record exists; the caller does not hold the key. */
    EXISTING
  }

  private static final ClaimResult ACQUIRED = new ClaimResult(Status.ACQUIRED, null);
  private static final ClaimResult TAKEN_OVER = new ClaimResult(Status.TAKEN_OVER, null);

  private final Status status;
  private final @Nullable IdempotencyRecord existing;

  private ClaimResult(Status status, @Nullable IdempotencyRecord existing) {
    this.status = status;
    this.existing = existing;
  }

  public static ClaimResult acquired() {
    return ACQUIRED;
  }

  public static ClaimResult takenOver() {
    return TAKEN_OVER;
  }

  public static ClaimResult existing(IdempotencyRecord record) {
    return new ClaimResult(Status.EXISTING, Objects.requireNonNull(record, "record"));
  }

  public Status status() {
    return status;
  }

  /** True when the caller holds the key now. */
  public boolean claimed() {
    return status != Status.EXISTING;
  }

  /** The live record that prevented the claim; null when {@link #claimed()}. */
  public @Nullable IdempotencyRecord existing() {
    return existing;
  }

  @Override
  public String toString() {
    return existing == null ? status.name() : status + "(" + existing.state() + ")";
  }
}
