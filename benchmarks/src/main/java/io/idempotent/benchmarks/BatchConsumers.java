package io.idempotent.benchmarks;

import io.idempotent.BatchResult;
import io.idempotent.Settlement;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The batched consumers {@link BatchConsumerBenchmark} times and {@link BatchCosts} counts, on PostgreSQL:
 * each handles a batch of new messages in one transaction, each message inserting its order. Installs the
 * global {@link Idempotency} (joined mode) until {@link #close()}. Not thread-safe.
 */
public final class BatchConsumers implements AutoCloseable {

  /** How the consumer is protected. */
  public enum Mode {
    /** The baseline: the batch's inserts and a commit, without the library. */
    unprotected,
    /** {@code Idempotency.batch} in joined mode: the batch's records commit with its orders. */
    batch,
    /** {@code @Idempotent} in joined mode around each message, one transaction per message. */
    perMessage,
    /** The peer: Camel's JDBC idempotent repository's {@code add} and {@code confirm} around each message. */
    camel
  }

  static final String NAME = "bench.consume";

  final Orders orders = new Orders();
  final SqlRig rig;
  private final CamelPeer camel;

  BatchConsumers(SqlRig rig) {
    this.rig = rig;
    rig.createOrdersTable();
    rig.createCamelTable();
    camel = new CamelPeer(rig.pool, NAME);
    Idempotency.install(IdempotencyConfig.builder()
        .store(rig.joinedStoreBuilder().transactionMode(TransactionMode.JOINED).build()).build());
  }

  /** A batch of {@code size} messages never seen before. */
  static List<String> freshBatch(Keys keys, int size) {
    List<String> messages = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      messages.add(keys.fresh());
    }
    return messages;
  }

  /** Handles {@code messages} as {@code mode} does; returns how many were acknowledged. */
  int consume(Mode mode, List<String> messages) {
    return switch (mode) {
      case unprotected -> rig.jdbi.inTransaction(h -> {
        for (String id : messages) {
          orders.placePlain(h, id, 1999);
        }
        return messages.size();
      });
      case batch -> rig.jdbi.inTransaction(h -> {
        int acked = 0;
        for (BatchResult<Receipt> r : Idempotency.global().batch(NAME, Receipt.class)
            .run(messages, id -> id, id -> orders.placePlain(h, id, 1999))) {
          acked += r.settlement() == Settlement.ACK ? 1 : 0;
        }
        return acked;
      });
      case perMessage -> {
        for (String id : messages) {
          rig.jdbi.inTransaction(h -> orders.place(h, id, 1999));
        }
        yield messages.size();
      }
      case camel -> rig.jdbi.inTransaction(h -> {
        for (String id : messages) {
          camel.first(id, () -> orders.placePlain(h, id, 1999));
        }
        return messages.size();
      });
    };
  }

  @Override
  public void close() {
    try {
      Idempotency.uninstall();
    } finally {
      camel.close();
    }
  }
}
