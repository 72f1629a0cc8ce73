package io.idempotent.spi;

/**
 * An optional capability of an {@link IdempotencyStore}: it keeps only some keys exactly as given. The
 * engine and one-time tokens compose every key they pass to obey {@link #keyRules()} (escaping what the
 * store cannot hold, hashing what is too long), so the store keeps the key as it is and encodes nothing
 * itself; it may refuse a key that breaks them ({@link StoreKeyRules#requireAccepted}). A store without it
 * takes every key ({@link #rulesOf}).
 */
public interface KeyLimits {

  /** The rules of {@code store}: its {@link #keyRules()}, or {@link StoreKeyRules#any()} for a store without limits. */
  static StoreKeyRules rulesOf(IdempotencyStore store) {
    return store instanceof KeyLimits limited ? limited.keyRules() : StoreKeyRules.any();
  }

  /** The keys this store keeps exactly as given: their longest length and the characters it cannot hold. */
  StoreKeyRules keyRules();
}
