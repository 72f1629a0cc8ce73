/**
 * The test kit for authors of an {@link io.idempotent.spi.IdempotencyStore}: add {@code
 * io.idempotent:idempotent-testkit} with test scope, and subclass the contracts.
 *
 * <ul>
 *   <li>{@link io.idempotent.testkit.IdempotencyStoreContract}: every store; implement {@code createStore()}
 *       and {@code advancePast(Duration)}.
 *   <li>{@link io.idempotent.testkit.HostileInputContract}: every store; implement {@code createStore()}.
 *   <li>{@link io.idempotent.testkit.MultiInstanceContract}: stores shared by several application
 *       instances; implement {@code createInstance()}, which opens one more instance over the same data.
 * </ul>
 *
 * Time that moves only when told, for the engine and for stores that take their time from a ticker, is
 * {@link io.idempotent.ManualTimeSource}, in the library itself.
 *
 * A store that decorates another extends {@link io.idempotent.spi.ForwardingIdempotencyStore}, which is
 * part of the SPI rather than of the kit.
 */
package io.idempotent.testkit;
