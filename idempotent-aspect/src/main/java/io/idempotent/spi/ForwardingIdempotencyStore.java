package io.idempotent.spi;

import io.idempotent.Effects;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * A store that passes every call on to another store, the default methods of {@link IdempotencyStore}
 * included, so that a decorator overrides only what it changes: count renewals, fail on demand, watch
 * lookups. {@link #close()} closes the wrapped store too; override it to leave that store open.
 *
 * <pre>{@code
 * final class RenewalCountingStore extends ForwardingIdempotencyStore {
 *   final AtomicInteger renewals = new AtomicInteger();
 *
 *   RenewalCountingStore(IdempotencyStore store) { super(store); }
 *
 *   @Override
 *   public boolean renew(String key, String owner, Duration lease) {
 *     renewals.incrementAndGet();
 *     return super.renew(key, owner, lease);
 *   }
 * }
 * }</pre>
 *
 * Thread-safe when the wrapped store is and the subclass keeps its own state thread-safe.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {

  private final IdempotencyStore delegate;

  protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The store every call goes to. */
  protected final IdempotencyStore delegate() {
    return delegate;
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    return delegate.claim(key, fingerprint, owner, lease);
  }

  /**
   * Passes the call's claim on as one, with its declared effects, so that the wrapped store decides how it
   * relates to the caller's transaction (the table store writes a transactional call's claim in it). A
   * decorator that watches claims overrides this method as well as {@link #claim}.
   */
  @Override
  public ClaimResult claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    return delegate.claimForCall(key, fingerprint, owner, lease, effects);
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return delegate.complete(key, owner, outcome, ttl);
  }

  @Override
  public boolean completeDetached(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return delegate.completeDetached(key, owner, outcome, ttl);
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

  @Override
  public void afterCommit(Runnable action) {
    delegate.afterCommit(action);
  }

  @Override
  public CompletionStage<?> changeSignal(String key) {
    return delegate.changeSignal(key);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public StoreKeyRules keyRules() {
    return delegate.keyRules();
  }

  @Override
  public boolean inMemory() {
    return delegate.inMemory();
  }
}
