package io.idempotent.spi;

import java.time.Duration;
import java.util.Optional;

/**
 * Storage of idempotency records: a handful of atomic primitives. The algorithm (what to do with a
 * claim result, when to renew, replay or release) lives in the engine; a store only makes each
 * primitive atomic and keeps time by its own authority (the database clock for SQL stores, an
 * injected ticker for in-memory stores). Expected outcomes are return values; an exception means the
 * store itself failed.
 *
 * <p>A record is <em>live</em> while it is {@link RecordState#IN_PROGRESS} with an unexpired lease, or
 * {@link RecordState#COMPLETED} with an unexpired TTL. An expired record is treated as absent by every
 * method, even before {@link #purgeExpired(int)} removes it.
 *
 * <p>Owner tokens are unique per call: the engine never reuses one for another call, so a store may
 * tell "my claim" from "someone else's" by comparing tokens.
 *
 * <p>Seven methods, six of them to write ({@link #close()} does nothing by default). Optional capabilities are small interfaces of their
 * own, which a store implements as well when it has them: {@link CallScopedClaims} (a call's claim bound to a
 * transaction, ended through its {@link CallClaim} handle), {@link ChangeSignals} (wake waiting duplicates
 * without polling), {@link KeyLimits} (keys it cannot keep as given) and {@link InMemoryStore} (records in
 * this process's memory).
 *
 * <p>Implementations must be thread-safe.
 */
public interface IdempotencyStore extends AutoCloseable {

  /**
   * Atomically claims {@code key} for {@code owner}: inserts an IN_PROGRESS record with the given
   * fingerprint and a lease of {@code lease}, unless a live record exists. An expired record (lease or
   * TTL run out) is replaced in the same atomic step.
   *
   * @return {@link ClaimResult#acquired()} or {@link ClaimResult#takenOver()} when this owner now holds
   *     the key, or {@link ClaimResult#existing(IdempotencyRecord)} with the live record otherwise
   */
  ClaimResult claim(String key, String fingerprint, String owner, Duration lease);

  /**
   * Marks the record COMPLETED with {@code outcome}, kept for {@code ttl}, if and only if {@code owner}
   * still holds the claim (fencing).
   *
   * @return false if this owner no longer holds the claim (another owner took it over, or the record
   *     is gone); nothing was changed then. An owner whose lease ran out but whom nobody replaced still
   *     holds the claim: its completion is kept, which saves a second execution.
   */
  boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl);

  /**
   * Deletes the IN_PROGRESS record if and only if {@code owner} still holds it, so the key may be
   * claimed again.
   *
   * @return false if this owner no longer holds the claim; nothing was changed then
   */
  boolean release(String key, String owner);

  /**
   * Extends the lease of an IN_PROGRESS record held by {@code owner} to {@code lease} from now.
   *
   * @return false if this owner no longer holds the claim; nothing was changed then
   */
  boolean renew(String key, String owner, Duration lease);

  /** The live record for {@code key}, or empty if there is none (absent or expired). */
  Optional<IdempotencyRecord> find(String key);

  /**
   * Deletes at most {@code maxRecords} expired records.
   *
   * @return how many were deleted; fewer than {@code maxRecords} means none are left for now
   */
  int purgeExpired(int maxRecords);

  /**
   * Releases what the store opened itself (a connection pool, a scheduler); never what it was given.
   * Stores built from properties are closed by {@link io.idempotent.runtime.Idempotency#uninstall()}.
   */
  @Override
  default void close() {}
}
