package io.idempotent.spi;

import java.time.Duration;
import java.util.List;

/**
 * An optional capability of an {@link IdempotencyStore}: it claims many keys, and records many outcomes, in
 * one atomic round trip each, for a batch of messages handled together (a consumer's prefetch, a fetch of
 * N). Each element means what {@link IdempotencyStore#claim} and {@link IdempotencyStore#complete} mean for
 * one key; the keys of one call are distinct. Stores without it are claimed key by key (docs/MESSAGING.md,
 * Batches). A batch is one call of the engine's: one owner token holds all the keys it claimed.
 */
public interface BatchClaims {

  /** A key to claim and the fingerprint of its payload. */
  record Claim(String key, String fingerprint) {}

  /** A claimed key and the outcome to record for it. */
  record Completion(String key, StoredOutcome outcome) {}

  /**
   * Claims every key for {@code owner} as {@link IdempotencyStore#claim} does, in one round trip.
   *
   * @param claims distinct keys
   * @return one result per claim, in the order of {@code claims}
   */
  List<ClaimResult> claimAll(List<Claim> claims, String owner, Duration lease);

  /**
   * Records every outcome as {@link IdempotencyStore#complete} does, in one round trip: each key whose claim
   * {@code owner} still holds becomes COMPLETED, kept for {@code ttl}.
   *
   * @param completions distinct keys
   * @return per completion, in order, whether it was recorded (false: {@code owner} no longer held that key)
   */
  boolean[] completeAll(List<Completion> completions, String owner, Duration ttl);
}
