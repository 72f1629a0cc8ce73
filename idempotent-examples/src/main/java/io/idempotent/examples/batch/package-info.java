/**
 * Batch consumers (docs/MESSAGING.md, Batches): orders taken from RabbitMQ ({@code basicQos} prefetch) or
 * NATS JetStream (a pull consumer's {@code fetch}) up to 50 at a time, handled with
 * {@code Idempotency.batch} in one PostgreSQL transaction with the store in joined mode, then each delivery
 * settled by its {@link io.idempotent.BatchResult#settlement()} after the commit.
 * {@link io.idempotent.examples.batch.BatchConsumerThroughput} measures such a consumer with and without the
 * library on a real broker.
 */
@NullMarked
package io.idempotent.examples.batch;

import org.jspecify.annotations.NullMarked;
