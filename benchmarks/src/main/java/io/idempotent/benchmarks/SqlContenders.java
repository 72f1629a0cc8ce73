package io.idempotent.benchmarks;

import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The SQL contenders of {@link SqlBenchmark} on one rig, each as a first call and a replay of a completed
 * key, in the order the tools report them: {@code @Idempotent} on the table store in independent mode (the
 * installed configuration, through the woven {@link Charges#charge}) and in transaction-scoped mode (a
 * programmatic call on the same table), the hand-written floor, the minimal two-commit floor and Camel.
 * {@link #close()} uninstalls the configuration and stops Camel's repository.
 */
final class SqlContenders implements AutoCloseable {

  /** A contender: its first call and its replay of a completed key. */
  record Contender(Consumer<String> first, Consumer<String> replay) {}

  private final CamelPeer camel;
  private final Map<String, Contender> all = new LinkedHashMap<>();

  SqlContenders(SqlRig rig, Charges charges) {
    Idempotency.install(IdempotencyConfig.builder().store(rig.storeBuilder().build()).build());
    Idempotency scoped = Idempotency.create(IdempotencyConfig.builder()
        .store(rig.storeBuilder().transactionMode(TransactionMode.TRANSACTION_SCOPED).build()).build());
    HandWrittenJdbc handWritten = new HandWrittenJdbc(rig.pool, rig.db, SqlRig.RECORDS);
    rig.createCamelTable();
    rig.createFloorTable();
    MinimalFloor floor = new MinimalFloor(rig.pool, rig.db, SqlRig.FLOOR);
    camel = new CamelPeer(rig.pool, Charges.CHARGE);
    Consumer<String> idempotent = k -> charges.charge(k, 1999);
    all.put("@Idempotent, independent", new Contender(idempotent, idempotent));
    Consumer<String> txScoped = k -> scoped.call(Charges.CHARGE, Receipt.class).key(k).payload(k, 1999L)
        .run(() -> charges.plain(k, 1999));
    all.put("@Idempotent, transaction-scoped", new Contender(txScoped, txScoped));
    Consumer<String> hand = k -> handWritten.call(Charges.CHARGE, k, 1999, () -> charges.plain(k, 1999));
    all.put("hand-written", new Contender(hand, hand));
    Consumer<String> minimal = k -> floor.call(Charges.CHARGE, k, 1999, () -> charges.plain(k, 1999));
    all.put("minimal two-commit floor", new Contender(minimal, minimal));
    all.put("Camel add+confirm / contains",
        new Contender(k -> camel.first(k, () -> charges.plain(k, 1999)), camel::duplicate));
  }

  /** The contenders by name, in reporting order. */
  Map<String, Contender> all() {
    return all;
  }

  @Override
  public void close() {
    try {
      camel.close();
    } finally {
      Idempotency.uninstall();
    }
  }
}
