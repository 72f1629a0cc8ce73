package io.idempotent.examples.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.idempotent.testservers.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link BatchConsumerThroughput}, run small: both consumers consume every message on the real broker and
 * PostgreSQL, each order booked once (the run checks the rows of each measurement and fails otherwise), and
 * the statements per batch are what a batch should send.
 */
class BatchConsumerThroughputTest {

  @Test
  void measuresBothConsumers_andTheProtectedBatchSendsTwoStatementsMore() throws Exception {
    String rabbit = BatchTestSupport.rabbitUri();
    TestServers.POSTGRES.requireReachable();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    BatchConsumerThroughput.Report report = BatchConsumerThroughput.run(new BatchConsumerThroughput.Settings(
        rabbit, TestServers.POSTGRES.url, TestServers.POSTGRES.user, TestServers.POSTGRES.password, 500, 2, 50),
        new PrintStream(log, true, StandardCharsets.UTF_8));

    assertThat(log.toString(StandardCharsets.UTF_8)).contains("round 1 batched", "round 1 unprotected");
    assertThat(report.unprotected().rates()).hasSize(2).allSatisfy(r -> assertThat(r).isPositive());
    assertThat(report.batched().rates()).hasSize(2).allSatisfy(r -> assertThat(r).isPositive());
    // an INSERT per message, and on PostgreSQL one read of the keys and one insert of the outcomes per protected batch
    BatchConsumerThroughput.Result plain = report.unprotected();
    BatchConsumerThroughput.Result batched = report.batched();
    assertThat(plain.messagesPerBatch()).as("messages per batch").isBetween(40.0, 50.0);
    assertThat(batched.messagesPerBatch()).as("messages per batch").isBetween(40.0, 50.0);
    assertThat(plain.statementsPerBatch()).as("unprotected statements per batch")
        .isCloseTo(plain.messagesPerBatch(), within(1e-9));
    assertThat(batched.statementsPerBatch()).as("batched statements per batch")
        .isCloseTo(batched.messagesPerBatch() + 2, within(1e-9));
    assertThat(report.unprotected().commitsPerBatch()).isEqualTo(1.0);
    assertThat(report.batched().commitsPerBatch()).isEqualTo(1.0);
    assertThat(report.ratio()).isPositive();
  }
}
