package io.idempotent.runtime;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.IdempotencyTokenException;
import io.idempotent.internal.DurationLimits;
import io.idempotent.internal.StoredKeys;
import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;

/**
 * Pre-issued one-time tokens: issue a token when a form is rendered, consume it exactly once when the
 * form is submitted. A second submission with the same token, or a token that was never issued or has
 * expired, is refused. Tokens are 128 random bits; the store keeps only their SHA-256, so a leaked
 * table does not leak usable tokens. Built on the store's atomic primitives, so consumption is exactly
 * once across threads and instances sharing the store. Thread-safe.
 *
 * <pre>{@code
 * OneTimeTokens tokens = Idempotency.global().tokens("checkout-form");
 * String token = tokens.issue(Duration.ofMinutes(30));   // put it in the form
 * ...
 * tokens.consume(submittedToken);                          // throws IdempotencyTokenException if reused
 * }</pre>
 */
public final class OneTimeTokens {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String ISSUED = "issued";
  /** The issued record's fingerprint says how long the token lives, so its "used" mark lives as long. */
  private static final String LIFETIME = "lifetime-ms:";
  private static final Duration MIN_USED_MARK = Duration.ofDays(1);

  private final IdempotencyStore store;
  private final String namespace;

  OneTimeTokens(IdempotencyStore store, String namespace) {
    this.store = Objects.requireNonNull(store, "store");
    if (namespace == null || namespace.isBlank()) {
      throw new IdempotencyConfigurationException("A token namespace must not be blank");
    }
    this.namespace = "token:" + namespace;
  }

  /** A new token, valid for {@code lifetime} until consumed. */
  public String issue(Duration lifetime) {
    DurationLimits.ttl(Objects.requireNonNull(lifetime, "lifetime"), "The lifetime of a token in " + namespace);
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    try {
      if (!store.claim(key(token), LIFETIME + lifetime.toMillis(), ISSUED, lifetime).claimed()) {
        throw new IllegalStateException("a fresh random token collided with a live one");
      }
    } catch (RuntimeException e) {
      throw new IdempotencyStoreException("The idempotency store failed to issue a token", e);
    }
    return token;
  }

  /**
   * Consumes {@code token}; succeeds exactly once per issued token.
   *
   * @throws IdempotencyTokenException if the token is unknown, expired or already used
   * @throws IdempotencyStoreException if the store fails (the token is then not consumed)
   */
  public void consume(String token) {
    if (token == null || token.isBlank()) {
      throw new IdempotencyTokenException(IdempotencyTokenException.Reason.UNKNOWN_OR_EXPIRED, "No token was given");
    }
    String key = key(token);
    try {
      Optional<IdempotencyRecord> record = store.find(key);
      if (record.isEmpty()) {
        throw refused(IdempotencyTokenException.Reason.UNKNOWN_OR_EXPIRED, key);
      }
      if (record.get().state() == RecordState.COMPLETED) {
        throw refused(IdempotencyTokenException.Reason.ALREADY_USED, key);
      }
      // the atomic step: only one consumer moves the token from issued to used
      if (!store.complete(key, ISSUED, StoredOutcome.nullValue(), usedMarkLifetime(record.get()))) {
        throw refused(IdempotencyTokenException.Reason.ALREADY_USED, key);
      }
    } catch (IdempotencyTokenException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IdempotencyStoreException("The idempotency store failed to consume a token", e);
    }
  }

  /** Like {@link #consume} but answers false instead of throwing when the token is refused. */
  public boolean tryConsume(String token) {
    try {
      consume(token);
      return true;
    } catch (IdempotencyTokenException e) {
      return false;
    }
  }

  /**
   * A used token is remembered as used for as long as it could have been presented, at least a day, so
   * a late replay of the form is told ALREADY_USED rather than UNKNOWN_OR_EXPIRED.
   */
  private static Duration usedMarkLifetime(IdempotencyRecord issued) {
    String fp = issued.fingerprint();
    if (fp.startsWith(LIFETIME)) {
      try {
        Duration lifetime = Duration.ofMillis(Long.parseLong(fp.substring(LIFETIME.length())));
        return lifetime.compareTo(MIN_USED_MARK) > 0 ? lifetime : MIN_USED_MARK;
      } catch (NumberFormatException e) {
        return MIN_USED_MARK; // not written by this class: keep the shortest mark
      }
    }
    return MIN_USED_MARK;
  }

  private String key(String token) {
    return StoredKeys.compose(namespace, null, Hashing.sha256(token), KeyLimits.rulesOf(store));
  }

  private IdempotencyTokenException refused(IdempotencyTokenException.Reason reason, String key) {
    return new IdempotencyTokenException(reason, "Token refused (" + reason.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
        + ") in " + namespace + " (key#" + Hashing.shortReference(key) + ")");
  }
}
