package io.idempotent.runtime;

import com.fasterxml.jackson.databind.json.JsonMapper;
import io.idempotent.internal.JacksonResultCodec;
import io.idempotent.spi.ResultCodec;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The result codec that {@link IdempotencyConfig} uses unless told otherwise — JSON through Jackson — and
 * its customisation with the application's own Jackson modules. The only place where Jackson's types meet
 * the API: {@link ResultCodec} itself knows no JSON library.
 */
public final class JsonCodec {

  private JsonCodec() {}

  /**
   * The default codec. It reads and writes ordinary value classes (private fields, records, constructors
   * whose parameters carry their names), and bounds what it reads to what it would write (4 MiB of JSON,
   * nesting depth 1,000). Stored data never names a class: a slot declared {@code Object}, {@code Number} or
   * {@code Serializable} keeps the class of what it holds through a tag from a closed list (strings,
   * numbers, java.time values, UUIDs and the JDK's collections of such) and refuses anything else, with an
   * {@link io.idempotent.IdempotencyResultException}, when the call is recorded.
   */
  public static ResultCodec standard() {
    return JacksonResultCodec.shared();
  }

  /**
   * The default codec with the application's own additions to its Jackson mapper: {@code customizer}
   * receives the mapper's builder, already configured as for {@link #standard()}, and may add modules,
   * serializers or features (a Kotlin or Joda module, a serializer of a money type). The limits on what
   * is read stay in place, and so does the handling of {@code Object} slots. Give the result to {@link
   * IdempotencyConfig.Builder#codec}.
   */
  public static ResultCodec customized(Consumer<? super JsonMapper.Builder> customizer) {
    return JacksonResultCodec.customized(Objects.requireNonNull(customizer, "customizer"));
  }
}
