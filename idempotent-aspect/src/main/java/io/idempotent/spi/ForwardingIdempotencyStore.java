package io.idempotent.spi;

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
   * Claims through {@link #claim}, so that a decorator overriding {@code claim} sees every claim; the
   * wrapped store then claims as {@link #claim} does, committed at once. A decorator that must keep the
   * wrapped store's claims for a call (the table store's transaction-scoped modes) overrides this method to
   * pass it on to {@code delegate().claimForCall}.
   */
  @Override
  public ClaimResult claimForCall(String key, String fingerprint, String owner, Duration lease) {
    return claim(key, fingerprint, owner, lease);
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
  public void checkCallingThread() {
    delegate.checkCallingThread();
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
