package io.idempotent.spi;

import io.idempotent.Effects;
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
   * Claims {@code key} as {@link #claim} does, for a method call that the calling thread runs next and
   * ends with {@link #complete}, {@link #completeDetached} or {@link #release} under the same owner: the
   * engine claims through this method, one-time tokens (whose claims must be visible at once) through
   * {@link #claim}. A store may keep such a claim uncommitted in a transaction that the call's outcome then
   * commits (the table store's transaction-scoped modes), and a store that can write in the caller's own
   * transaction decides from {@code effects} whether this call's claim and outcome go into it, or refuses
   * the call before anything is written. The default claims as {@link #claim} does.
   *
   * @param effects where the method's effects live, as the call declares it
   * @throws io.idempotent.IdempotencyConfigurationException when the call cannot be recorded the way it
   *     is declared, or must declare how (a transaction it could either join or not); the engine passes it
   *     on and the method does not run
   */
  default ClaimResult claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    return claim(key, fingerprint, owner, lease);
  }

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
   * Records an outcome that arrived after the call returned, on whatever thread completed the call's
   * {@code CompletionStage}: like {@link #complete}, but never inside a transaction that thread happens
   * to have open, which is not the call's. The default is {@link #complete}, right for every store that
   * commits each write at once.
   */
  default boolean completeDetached(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return complete(key, owner, outcome, ttl);
  }

  /**
   * Runs {@code action} once the outcome this thread last wrote with {@link #complete} is committed.
   * Stores whose writes commit at once run it immediately (the default); a store that can join the
   * caller's transaction runs it after that transaction commits, and never if it rolls back. Caches in
   * front of a store use it so that only committed outcomes are cached.
   */
  default void afterCommit(Runnable action) {
    action.run();
  }

  /**
   * A signal that completes when the record for {@code key} may have changed (completed or released),
   * if this store can tell without polling; null otherwise, and the engine polls {@link #find}.
   */
  default java.util.concurrent.CompletionStage<?> changeSignal(String key) {
    return null;
  }

  /**
   * Releases what the store opened itself (a connection pool, a scheduler); never what it was given.
   * Stores built from properties are closed by {@link io.idempotent.Idempotency#uninstall()}.
   */
  @Override
  default void close() {}

  /**
   * The keys this store keeps exactly as given: their longest length and the characters it cannot hold.
   * The engine and one-time tokens compose every key they pass to obey these rules (escaping what the store
   * cannot hold, hashing what is too long), so the store keeps the key as it is and encodes nothing itself;
   * it may refuse a key that breaks them ({@link StoreKeyRules#requireAccepted}). The default takes every key.
   */
  default StoreKeyRules keyRules() {
    return StoreKeyRules.any();
  }

  /**
   * Whether this store keeps its records in this process's own memory, each operation taking well under a
   * microsecond (the Caffeine store). Instrumentation that would add work to every operation, such as
   * timing it, may leave such a store out: reading a clock twice costs about as much as the operation.
   * False by default, as for the SQL and Redis stores and every store that leaves the process.
   */
  default boolean inMemory() {
    return false;
  }
}
