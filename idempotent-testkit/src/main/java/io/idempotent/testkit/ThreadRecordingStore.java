package io.idempotent.testkit;

import io.idempotent.Effects;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.ForwardingCallClaim;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A store that notes the name of the thread each of its calls runs on, so that a test can tell that no
 * store call ran where none may (a Netty event loop, a subscriber's thread). Everything else goes to the
 * wrapped store; {@link #close()} leaves it open, for whoever opened it to close. Thread-safe.
 */
public final class ThreadRecordingStore extends ForwardingIdempotencyStore {

  private final Set<String> threads = ConcurrentHashMap.newKeySet();

  public ThreadRecordingStore(IdempotencyStore delegate) {
    super(delegate);
  }

  /** The names of the threads the store was called on so far. */
  public Set<String> threads() {
    return Set.copyOf(threads);
  }

  private void note() {
    threads.add(Thread.currentThread().getName());
  }

  @Override
  public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    note();
    return super.claimForCall(key, fingerprint, owner, lease, effects);
  }

  @Override
  protected CallClaim forward(CallClaim claim) {
    return new ForwardingCallClaim(claim) {
      @Override
      public boolean complete(StoredOutcome outcome, Duration ttl) {
        note();
        return super.complete(outcome, ttl);
      }

      @Override
      public boolean completeDetached(StoredOutcome outcome, Duration ttl) {
        note();
        return super.completeDetached(outcome, ttl);
      }

      @Override
      public boolean release() {
        note();
        return super.release();
      }

      @Override
      public boolean renew(Duration lease) {
        note();
        return super.renew(lease);
      }
    };
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    note();
    return super.claim(key, fingerprint, owner, lease);
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    note();
    return super.complete(key, owner, outcome, ttl);
  }

  @Override
  public boolean release(String key, String owner) {
    note();
    return super.release(key, owner);
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    note();
    return super.renew(key, owner, lease);
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    note();
    return super.find(key);
  }

  @Override
  public CompletionStage<?> changeSignal(String key) {
    note();
    return super.changeSignal(key);
  }

  @Override
  public void close() {
    // the wrapped store is its opener's to close
  }
}
