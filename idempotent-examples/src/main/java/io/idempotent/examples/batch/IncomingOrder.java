package io.idempotent.examples.batch;

import org.jspecify.annotations.Nullable;

/**
 * One delivery as a batch consumer hands it to {@link OrderBatches}, whatever the broker. Immutable.
 *
 * @param messageId the message id the publisher set (the idempotency key); null or blank when it set none
 * @param body the message body, an {@link io.idempotent.examples.rabbitmq.Order} as text
 */
public record IncomingOrder(@Nullable String messageId, String body) {}
