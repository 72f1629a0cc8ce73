package io.idempotent.spi;

import io.idempotent.Effects;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * A store that passes everything on to another store, its optional capabilities included, so that a
 * decorator overrides only what it changes. The engine claims each method call with {@link #claimForCall}
 * and ends it through the returned {@link CallClaim}; the primitives serve one-time tokens and purges. A
 * decorator that watches calls therefore overrides {@link #forward} and wraps the handle in a
 * {@link ForwardingCallClaim}:
 *
 * <pre>{@code
 * final class RenewalCountingStore extends ForwardingIdempotencyStore {
 *   final AtomicInteger renewals = new AtomicInteger();
 *
 *   RenewalCountingStore(IdempotencyStore store) { super(store); }
 *
 *   @Override
 *   protected CallClaim forward(CallClaim claim) {
 *     return new ForwardingCallClaim(claim) {
 *       @Override
 *       public boolean renew(Duration lease) {
 *         renewals.incrementAndGet();
 *         return super.renew(lease);
 *       }
 *     };
 *   }
 * }
 * }</pre>
 *
 * {@link #close()} closes the wrapped store too; override it to leave that store open. Thread-safe when the
 * wrapped store is and the subclass keeps its own state thread-safe.
 */
public abstract class ForwardingIdempotencyStore
    implements IdempotencyStore, CallScopedClaims, ChangeSignals, KeyLimits {

  private final IdempotencyStore delegate;

  protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The store every call goes to. */
  protected final IdempotencyStore delegate() {
    return delegate;
  }

  /**
   * Claims a method call on the wrapped store, as the engine would ({@link CallClaims#claim}: bound to a
   * transaction where that store binds calls, with the call's declared effects), and hands the handle to
   * {@link #forward}.
   */
  @Override
  public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    return forward(CallClaims.claim(delegate, key, fingerprint, owner, lease, effects));
  }

  /** The handle a call of this store gets for {@code claim}, the wrapped store's; by default that handle itself. */
  protected CallClaim forward(CallClaim claim) {
    return claim;
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    return delegate.claim(key, fingerprint, owner, lease);
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return delegate.complete(key, owner, outcome, ttl);
  }

  @Override
  public boolean release(String key, String owner) {
    return delegate.release(key, owner);
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    return delegate.renew(key, owner, lease);
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    return delegate.find(key);
  }

  @Override
  public int purgeExpired(int maxRecords) {
    return delegate.purgeExpired(maxRecords);
  }

  /** The wrapped store's signal, or null where it has none. */
  @Override
  public @Nullable CompletionStage<?> changeSignal(String key) {
    return delegate instanceof ChangeSignals signals ? signals.changeSignal(key) : null;
  }

  /** The wrapped store's rules ({@link KeyLimits#rulesOf}). */
  @Override
  public StoreKeyRules keyRules() {
    return KeyLimits.rulesOf(delegate);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
