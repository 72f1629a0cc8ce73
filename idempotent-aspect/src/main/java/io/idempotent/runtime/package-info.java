/**
 * Installing, configuring and calling: {@link io.idempotent.runtime.Idempotency} installs an {@link
 * io.idempotent.runtime.IdempotencyConfig} for the aspect ajc weaves with ({@link
 * io.idempotent.runtime.IdempotentAspect}), runs programmatic calls ({@link
 * io.idempotent.runtime.IdempotentCall}) and one-time tokens, and {@link io.idempotent.runtime.JsonCodec}
 * configures how results are recorded. The annotation and the types a method's callers see are in
 * {@code io.idempotent}; stores implement {@code io.idempotent.spi}.
 *
 * <p>Null-marked: types mean non-null unless annotated {@code @Nullable} (checked by NullAway in the build).
 */
@NullMarked
package io.idempotent.runtime;

import org.jspecify.annotations.NullMarked;
