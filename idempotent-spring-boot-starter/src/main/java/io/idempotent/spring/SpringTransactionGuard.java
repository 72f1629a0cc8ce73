package io.idempotent.spring;

import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A store that cannot write in a Spring-managed transaction (Caffeine, Redis, one of the application's
 * own), guarded as the table store guards itself: a call made inside an active transaction must be
 * declared {@link Effects#EXTERNAL}, since its record always survives a rollback, and would otherwise
 * replay an effect the transaction rolled back. Loaded only where spring-tx is present. Thread-safe.
 */
final class SpringTransactionGuard extends ForwardingIdempotencyStore {

  private final String name;

  SpringTransactionGuard(String name, IdempotencyStore store) {
    super(store);
    this.name = name;
  }

  @Override
  public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    if (effects != Effects.EXTERNAL && TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IdempotencyConfigurationException("The call runs inside a Spring-managed transaction, but the"
          + " idempotency store '" + name + "' (" + delegate().getClass().getSimpleName() + ") records every"
          + " outcome on its own, so it would survive a rollback of that transaction"
          + (effects == Effects.TRANSACTIONAL ? ", and the call is declared Effects.TRANSACTIONAL" : "")
          + "; the method did not run. Declare @Idempotent(effects = Effects.EXTERNAL) when the method's effects"
          + " are outside the transaction (an external API), or use the SQL table store on the transaction's"
          + " DataSource (idempotent.store=jdbi), which can write the outcome in the transaction");
    }
    return super.claimForCall(key, fingerprint, owner, lease, effects);
  }

  /** The store guarded. */
  IdempotencyStore guarded() {
    return delegate();
  }

  /** The store is a bean of its own, closed by its container. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return delegate().toString();
  }
}
