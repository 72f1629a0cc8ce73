package io.idempotent;

import io.idempotent.internal.text.Hashing;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One outcome of an idempotent call, delivered to an {@link IdempotencyListener}. Carries the key
 * namespace and a short non-reversible reference to the stored key, never the key or payload itself.
 * Immutable.
 */
public final class IdempotencyEvent {

  /** What happened. */
  public enum Type {
    /** The method ran and its outcome was recorded. */
    EXECUTED,
    /** A completed outcome was returned without running the method. */
    REPLAYED,
    /** A duplicate found the key in progress and was refused ({@link IdempotencyInProgressException}). */
    IN_PROGRESS,
    /** A duplicate waited for the call in progress. */
    WAITED,
    /** A duplicate found the key in progress and returned without running ({@link OnInProgress#SKIP}). */
    SKIPPED,
    /** The key was reused with a different payload. */
    KEY_REUSED,
    /** The key expression gave null or blank. */
    KEY_MISSING,
    /** An expired claim of another owner (who presumably died) was taken over. */
    LEASE_TAKEN_OVER,
    /** This owner lost its claim before it could complete, renew or release; nothing was overwritten. */
    LEASE_LOST,
    /**
     * The call ran past its maximum run time: its lease is no longer renewed, and once it runs out
     * another caller may take the key over.
     */
    RUN_TIME_EXCEEDED,
    /** The method threw; the claim was released so the key may be retried. */
    RELEASED_ON_FAILURE,
    /** The method threw an exception declared final; it was recorded as the outcome. */
    FAILURE_STORED,
    /** The store failed. */
    STORE_ERROR
  }

  private final Type type;
  private final String name;
  /** The stored key, kept only to compute {@link #keyReference} when first asked; null when given. */
  private final @Nullable String storedKey;
  /** Computed at most once per thread that asks; the same string each time. */
  private @Nullable String keyReference;
  private final @Nullable Throwable error;

  /**
   * @param keyReference the short reference of the stored key, as {@link #keyReference()} gives it
   *     (the engine passes the one its exceptions and log lines carry), or null when there is no key
   * @param error the store error or the failure that caused a release, or null
   */
  public IdempotencyEvent(Type type, String name, @Nullable String keyReference, @Nullable Throwable error) {
    this.type = type;
    this.name = name;
    this.storedKey = null;
    this.keyReference = keyReference;
    this.error = error;
  }

  private IdempotencyEvent(Type type, String name, @Nullable Throwable error, @Nullable String storedKey) {
    this.type = type;
    this.name = name;
    this.storedKey = storedKey;
    this.error = error;
  }

  /**
   * An event of a call on {@code storedKey} (null when the call had no key) whose {@link #keyReference()} is
   * computed when first asked for, so that a listener that does not read it does not pay for its hash. The
   * event never gives the stored key itself.
   */
  public static IdempotencyEvent ofStoredKey(Type type, String name, String storedKey, Throwable error) {
    return new IdempotencyEvent(type, name, error, storedKey);
  }

  public Type type() {
    return type;
  }

  /** The key namespace (the annotation's {@code name}). */
  public String name() {
    return name;
  }

  /**
   * A short hash of the stored key, the one exceptions and log lines give as {@code key#…}: enough to
   * correlate events and logs, not to recover the key; {@code -} when the call had no key.
   */
  public @Nullable String keyReference() {
    String reference = keyReference;
    if (reference == null && storedKey != null) {
      reference = Hashing.shortReference(storedKey);
      keyReference = reference; // a benign race: every thread computes the same immutable string
    }
    return reference == null ? "-" : reference;
  }

  /** The store error, or the failure that caused a release; empty otherwise. */
  public Optional<Throwable> error() {
    return Optional.ofNullable(error);
  }

  @Override
  public String toString() {
    return type + " " + name + " key#" + keyReference();
  }
}
