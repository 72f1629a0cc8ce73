/**
 * The RabbitMQ consumer recipe (plain {@code com.rabbitmq:amqp-client}): orders consumed with manual
 * acknowledgements by an {@code @Idempotent} handler that books each order in the same PostgreSQL
 * transaction as its idempotency record, each delivery settled by {@link io.idempotent.Settlement}.
 * docs/MESSAGING.md, RabbitMQ, walks through it.
 */
@NullMarked
package io.idempotent.examples.rabbitmq;

import org.jspecify.annotations.NullMarked;
