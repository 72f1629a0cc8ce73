package com.example.docs.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.example.docs.messaging.rabbitmq.Order;
import com.example.docs.messaging.rabbitmq.OrderBook;
import com.example.docs.messaging.rabbitmq.OrderDeclinedException;
import com.example.docs.messaging.rabbitmq.OrderIntake;
import com.rabbitmq.client.AMQP;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * docs/MESSAGING.md, RabbitMQ: the handler on H2 with the JDBI store in joined mode. The consumer's settlement
 * on the real broker is tested with the recipe itself (idempotent-examples, RabbitOrderConsumerTest).
 */
class RabbitMqRecipeTest {

  private Jdbi jdbi;

  @BeforeEach
  void install() {
    jdbi = Jdbi.create("jdbc:h2:mem:messaging-rabbitmq-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    OrderBook.createTable(jdbi);
    JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(jdbi)
        .transactionMode(TransactionMode.JOINED_TRANSACTION_SCOPED).createSchema(true).build();
    Idempotency.install(IdempotencyConfig.builder().store(store).build());
  }

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  private int rows() {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM booked_order").mapTo(Integer.class).one());
  }

  private static AMQP.BasicProperties messageId(String id) {
    return new AMQP.BasicProperties.Builder().messageId(id).build();
  }

  @Test
  void aRedeliveredOrderIsBookedOnce_aDeclineIsRecordedAndReplayed() throws Exception {
    OrderIntake intake = new OrderIntake(jdbi, new OrderBook(10_000));
    byte[] order = new Order("o-1", "ada", 2_500).toBody();

    intake.handle(messageId("m-1"), order);
    intake.handle(messageId("m-1"), order);
    assertThat(rows()).isEqualTo(1);

    byte[] large = new Order("o-2", "bob", 50_000).toBody();
    assertThatThrownBy(() -> intake.handle(messageId("m-2"), large)).isInstanceOf(OrderDeclinedException.class);
    OrderIntake raisedLimit = new OrderIntake(jdbi, new OrderBook(1_000_000));
    assertThatThrownBy(() -> raisedLimit.handle(messageId("m-2"), large))
        .as("the committed decline replays rather than checking the order again")
        .isInstanceOf(OrderDeclinedException.class);
    assertThat(rows()).isEqualTo(1);
  }
}
