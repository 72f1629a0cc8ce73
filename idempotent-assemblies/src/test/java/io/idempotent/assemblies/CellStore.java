package io.idempotent.assemblies;

import io.idempotent.Effects;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.CallClaims;
import io.idempotent.spi.CallScopedClaims;
import io.idempotent.spi.ChangeSignals;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The store the woven aspect is configured with: it passes every operation to the table store of the cell
 * being walked (the Spring Boot starter's, or the one on the application's {@code Jdbi}), or, on a thread of
 * the scheduled job's second instance, to that instance's. The aspect has one installed configuration per
 * JVM; this lets the suite switch stores between cells without installing a new engine for each. A call's
 * claim is the handle of the store that claimed it, so its completion, release and renewals (also from the
 * engine's background threads) go there; so do those of a one-time token's claim.
 */
final class CellStore implements IdempotencyStore, CallScopedClaims, ChangeSignals, KeyLimits {

  private static final CellStore INSTANCE = new CellStore();
  private static final ThreadLocal<IdempotencyStore> THREADS = new ThreadLocal<>();
  private static volatile IdempotencyStore cell;

  private final Map<String, IdempotencyStore> byOwner = new ConcurrentHashMap<>();

  private CellStore() {}

  /** Installs the configuration the woven aspect, the filter and programmatic calls use: this store. */
  static void install() {
    Idempotency.install(IdempotencyConfig.builder().store(INSTANCE).build());
  }

  /** The store of the cell being walked. */
  static void use(IdempotencyStore store) {
    cell = store;
  }

  /** Runs {@code body} with {@code store} as the store of the calling thread (an instance's thread). */
  static <T> T on(IdempotencyStore store, Supplier<T> body) {
    IdempotencyStore before = THREADS.get();
    THREADS.set(store);
    try {
      return body.get();
    } finally {
      THREADS.set(before);
    }
  }

  private static IdempotencyStore here() {
    IdempotencyStore s = THREADS.get();
    return s != null ? s : cell;
  }

  private IdempotencyStore claimant(String owner) {
    IdempotencyStore s = byOwner.get(owner);
    return s != null ? s : here();
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    IdempotencyStore s = here();
    byOwner.put(owner, s);
    return s.claim(key, fingerprint, owner, lease);
  }

  @Override
  public CallClaim claimForCall(String key, String fingerprint, String owner, Duration lease, Effects effects) {
    return CallClaims.claim(here(), key, fingerprint, owner, lease, effects);
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    return claimant(owner).complete(key, owner, outcome, ttl);
  }

  @Override
  public boolean release(String key, String owner) {
    return claimant(owner).release(key, owner);
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    return claimant(owner).renew(key, owner, lease);
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    return here().find(key);
  }

  @Override
  public int purgeExpired(int maxRecords) {
    return here().purgeExpired(maxRecords);
  }

  @Override
  public CompletionStage<?> changeSignal(String key) {
    return here() instanceof ChangeSignals signals ? signals.changeSignal(key) : null;
  }

  /** Every store it passes to is a table store: their rules, also before a cell chose one. */
  @Override
  public StoreKeyRules keyRules() {
    return JdbiIdempotencyStore.KEY_RULES;
  }
}
