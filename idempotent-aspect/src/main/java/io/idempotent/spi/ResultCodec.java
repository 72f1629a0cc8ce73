package io.idempotent.spi;

import com.fasterxml.jackson.databind.json.JsonMapper;
import io.idempotent.internal.JacksonResultCodec;
import java.lang.reflect.Type;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Encodes results to text and back, restricted to a declared type: decoding never instantiates a type
 * named by the stored data. Implementations must be thread-safe.
 */
public interface ResultCodec {

  /**
   * The default codec: JSON through Jackson, as {@link io.idempotent.IdempotencyConfig} uses unless told
   * otherwise. It reads and writes ordinary value classes (private fields, records, constructors whose
   * parameters carry their names), and bounds what it reads to what it would write (4 MiB of JSON, nesting
   * depth 1,000). Stored data never names a class: a slot declared {@code Object}, {@code Number} or
   * {@code Serializable} keeps the class of what it holds through a tag from a closed list (strings,
   * numbers, java.time values, UUIDs and the JDK's collections of such) and refuses anything else, with an
   * {@link io.idempotent.IdempotencyResultException}, when the call is recorded.
   */
  static ResultCodec json() {
    return JacksonResultCodec.shared();
  }

  /**
   * The default codec with the application's own additions to its Jackson mapper: {@code customizer}
   * receives the mapper's builder, already configured as for {@link #json()}, and may add modules,
   * serializers or features (a Kotlin or Joda module, a serializer of a money type). The limits on what
   * is read stay in place, and so does the handling of {@code Object} slots. Give the result to {@link
   * io.idempotent.IdempotencyConfig.Builder#codec}.
   */
  static ResultCodec json(Consumer<? super JsonMapper.Builder> customizer) {
    return JacksonResultCodec.customized(Objects.requireNonNull(customizer, "customizer"));
  }

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
