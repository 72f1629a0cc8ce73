package com.example.docs.messaging.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.BatchResult;
import io.idempotent.Settlement;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** docs/MESSAGING.md, Batches: the batch's handler on H2 with the JDBI store in joined mode. */
class BatchRecipeTest {

  @Test
  void aBatchIsBookedOnce_itsRedeliveryReplays_andADeclineIsRejected() {
    Jdbi jdbi = Jdbi.create("jdbc:h2:mem:messaging-batch-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    jdbi.useHandle(h -> h.execute("CREATE TABLE booked_order (order_id VARCHAR(100), message_id VARCHAR(100))"));
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi).transactionMode(TransactionMode.JOINED)
        .createSchema(true).build();
    OrderBatches batches = new OrderBatches(jdbi, Idempotency.create(IdempotencyConfig.builder().store(store).build()));
    List<OrderBatches.Readable> orders = List.of(
        new OrderBatches.Readable("m-1", new OrderBatches.Order("o-1", 100)),
        new OrderBatches.Readable("m-2", new OrderBatches.Order("o-2", 0)),
        new OrderBatches.Readable("m-1", new OrderBatches.Order("o-1", 100)));

    List<BatchResult<String>> first = batches.handle(orders);
    List<BatchResult<String>> again = batches.handle(orders);

    assertThat(first).extracting(BatchResult::settlement)
        .containsExactly(Settlement.ACK, Settlement.REJECT, Settlement.ACK);
    assertThat(first.get(2).replayed()).isTrue();
    assertThat(again).allSatisfy(r -> assertThat(r.replayed()).isTrue());
    int rows = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM booked_order").mapTo(Integer.class).one());
    assertThat(rows).isEqualTo(1);
  }
}
