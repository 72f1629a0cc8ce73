package io.idempotent.internal;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.idempotent.IdempotencyResultException;
import io.idempotent.spi.ResultCodec;
import java.lang.reflect.Type;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default codec: JSON through Jackson, always as the declared generic type. Default typing is
 * never enabled, so stored data cannot name a class to instantiate. Thread-safe.
 */
public final class JacksonResultCodec implements ResultCodec {

  private static final JacksonResultCodec SHARED = new JacksonResultCodec(baseMapper().build());

  private final ObjectMapper mapper;
  private final ConcurrentHashMap<Type, ObjectWriter> writers = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Type, ObjectReader> readers = new ConcurrentHashMap<>();

  public JacksonResultCodec(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  public static JacksonResultCodec shared() {
    return SHARED;
  }

  static JsonMapper.Builder baseMapper() {
    return JsonMapper.builder()
        .addModule(new Jdk8Module())
        .addModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);
  }

  /** A mapper for canonical trees of arbitrary argument objects (fingerprints). */
  static ObjectMapper canonicalMapper() {
    return baseMapper()
        .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .build();
  }

  @Override
  public String encode(Object value, Type declaredType) {
    try {
      // stores keep text as UTF-8, which has no lone surrogates: spell them as JSON escapes
      return JsonText.escapeLoneSurrogates(
          writers.computeIfAbsent(declaredType, t -> mapper.writerFor(mapper.constructType(t))).writeValueAsString(value));
    } catch (Exception e) {
      throw new IdempotencyResultException(
          "Cannot encode a result of type " + value.getClass().getName() + " as JSON of " + declaredType.getTypeName()
              + ": " + e.getClass().getSimpleName(), e);
    }
  }

  @Override
  public Object decode(String data, Type declaredType) {
    try {
      return readers.computeIfAbsent(declaredType, t -> mapper.readerFor(mapper.constructType(t))).readValue(data);
    } catch (Exception e) {
      throw new IdempotencyResultException(
          "Cannot decode a stored result as " + declaredType.getTypeName() + ": " + e.getClass().getSimpleName(), e);
    }
  }
}
