package io.idempotent.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.Effects;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import org.jdbi.v3.core.Jdbi;

/**
 * The process {@link TransactionScopedCrashTest} kills: it claims one key in a transaction-scoped mode
 * (joined: inside a transaction that also inserts a ledger row), prints {@code HOLDING} while the method
 * runs, and waits there until it is killed. Arguments: url, user, password, table, mode, ledger table, key.
 */
final class ScopedCrashChild {

  private ScopedCrashChild() {}

  public static void main(String[] args) throws Exception {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(args[0]);
    hc.setUsername(args[1]);
    hc.setPassword(args[2]);
    hc.setMaximumPoolSize(2);
    HikariDataSource pool = new HikariDataSource(hc);
    Jdbi jdbi = Jdbi.create(pool);
    TransactionMode mode = TransactionMode.valueOf(args[4]);
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).table(args[3]).transactionMode(mode).build();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store)
        .defaultLease(Duration.ofMinutes(10)).build());
    String ledger = args[5];
    String key = args[6];
    // transaction-scoped: the claim is held in the store's own transaction, the call writes nothing in the
    // caller's (external to it); joined: claim, ledger row and outcome in the caller's transaction
    Effects effects = mode == TransactionMode.JOINED_TRANSACTION_SCOPED ? Effects.TRANSACTIONAL : Effects.EXTERNAL;
    jdbi.useTransaction(h -> idempotency.call(TransactionScopedCrashTest.NAME, String.class).key(key)
        .effects(effects).run(() -> {
      if (mode == TransactionMode.JOINED_TRANSACTION_SCOPED) {
        h.execute("INSERT INTO " + ledger + " (id, writer) VALUES (?, 'child')", key);
      }
      System.out.println("HOLDING");
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
      return "child";
    }));
  }
}
