package io.idempotent.spi;

import java.lang.reflect.Type;

/**
 * Encodes results to text and back, restricted to a declared type: decoding never instantiates a type
 * named by the stored data. Implementations must be thread-safe.
 */
public interface ResultCodec {

  /** Encodes {@code value} as {@code declaredType}. */
  String encode(Object value, Type declaredType);

  /** Decodes {@code data} into {@code declaredType} and nothing else. */
  Object decode(String data, Type declaredType);
}
