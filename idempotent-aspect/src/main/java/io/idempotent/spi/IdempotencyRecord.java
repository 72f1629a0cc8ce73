package io.idempotent.spi;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A live record as a store returns it. Immutable.
 *
 * @param key the stored key
 * @param state the record's state
 * @param fingerprint the payload fingerprint of the call that claimed the key ({@code ""} if none)
 * @param owner the owner token of the claim; may be null for a completed record
 * @param outcome the outcome, present exactly when {@code state} is COMPLETED
 * @param expiresIn how long the record has left by the store's clock (lease or TTL), or null when the
 *     store does not say; a cache in front of the store keeps a copy no longer than this
 */
public record IdempotencyRecord(
    String key,
    RecordState state,
    String fingerprint,
    @Nullable String owner,
    @Nullable StoredOutcome outcome,
    @Nullable Duration expiresIn) {

  public IdempotencyRecord(
      String key, RecordState state, String fingerprint, @Nullable String owner, @Nullable StoredOutcome outcome) {
    this(key, state, fingerprint, owner, outcome, null);
  }

  public IdempotencyRecord {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(fingerprint, "fingerprint");
    if ((state == RecordState.COMPLETED) != (outcome != null)) {
      throw new IllegalArgumentException("a COMPLETED record has an outcome, an IN_PROGRESS one has none");
    }
  }

  public static IdempotencyRecord inProgress(String key, String fingerprint, @Nullable String owner) {
    return new IdempotencyRecord(key, RecordState.IN_PROGRESS, fingerprint, owner, null);
  }

  public static IdempotencyRecord completed(String key, String fingerprint, StoredOutcome outcome) {
    return new IdempotencyRecord(key, RecordState.COMPLETED, fingerprint, null, outcome);
  }

  /** This record with its remaining lifetime set. */
  public IdempotencyRecord withExpiresIn(Duration remaining) {
    return new IdempotencyRecord(key, state, fingerprint, owner, outcome, remaining);
  }
}
