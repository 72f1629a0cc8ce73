package io.idempotent.spi;

import java.lang.reflect.Type;

/**
 * Encodes results to text and back, restricted to a declared type: decoding never instantiates a type
 * named by the stored data. Implementations must be thread-safe. The default, JSON through Jackson, and
 * its customisation are {@link io.idempotent.runtime.JsonCodec}'s.
 */
public interface ResultCodec {

  /** Encodes {@code value} as {@code declaredType}. */
  String encode(Object value, Type declaredType);

  /** Decodes {@code data} into {@code declaredType} and nothing else. */
  Object decode(String data, Type declaredType);

  /**
   * Refuses a declared result type whose values this codec could encode but never decode, so that such a
   * method is refused before it first runs instead of recording a result no retry can read back. Called
   * once per annotated method (and per programmatic call), before the method runs; the engine reports
   * the refusal as an {@link io.idempotent.IdempotencyConfigurationException} naming the method and the
   * type. The default accepts every type: a codec that knows nothing better keeps its old behaviour.
   *
   * @throws IllegalArgumentException whose message says why values of {@code declaredType} cannot be decoded
   */
  default void checkDecodable(Type declaredType) {}
}
