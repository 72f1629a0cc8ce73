/**
 * The NATS JetStream consumer recipe of docs/MESSAGING.md: a durable pull consumer whose handler records
 * its effect and its idempotency record in one PostgreSQL transaction, and acknowledges after the commit.
 *
 * <p>Null-marked: types mean non-null unless annotated {@code @Nullable}.
 */
@NullMarked
package io.idempotent.examples.nats;

import org.jspecify.annotations.NullMarked;
