package io.idempotent.internal;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.module.paramnames.ParameterNamesModule;
import io.idempotent.IdempotencyResultException;
import io.idempotent.internal.text.JsonText;
import io.idempotent.spi.ResultCodec;
import java.lang.reflect.Type;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default codec: JSON through Jackson, always as the declared generic type. Stored data never names
 * a class to instantiate: a value in an open slot (declared {@code Object}, {@code Number} or {@code
 * Serializable}) carries a tag from a closed list of JDK types ({@link ObjectSlots}), and any other value
 * there is refused when it is recorded. Thread-safe.
 *
 * <p>The shared instance reads and writes ordinary value classes as they are: private fields, records,
 * getters-only classes, constructors whose parameters carry their names ({@code -parameters}) and
 * no-argument constructors with setters; a {@code ZonedDateTime} keeps its zone id. {@link
 * #checkDecodable} refuses, before a method first runs, a declared type Jackson could write but not build.
 */
public final class JacksonResultCodec implements ResultCodec {

  /**
   * The longest result the codec records, in characters of JSON (4 MiB). A longer one is refused when
   * the call completes, and whatever is written within it can be read back: the reader accepts strings,
   * numbers, names and documents up to this length, and the same nesting depth as the writer. Four
   * million characters stay within the 16 MB statement limit MariaDB and MySQL have by default.
   */
  public static final int MAX_RESULT_CHARS = 4 * 1024 * 1024;
  private static final int MAX_NESTING_DEPTH = 1000;

  private static final JacksonResultCodec SHARED = new JacksonResultCodec(codecMapper().build());

  private final ObjectMapper mapper;
  private final ConcurrentHashMap<Type, ObjectWriter> writers = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Type, ObjectReader> readers = new ConcurrentHashMap<>();
  /** Per declared type: why it cannot be decoded, or "" when it can. */
  private final ConcurrentHashMap<Type, String> undecodable = new ConcurrentHashMap<>();

  public JacksonResultCodec(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  public static JacksonResultCodec shared() {
    return SHARED;
  }

  /** A codec whose mapper is the shared one's, with what {@code customizer} adds to its builder. */
  public static JacksonResultCodec customized(java.util.function.Consumer<? super JsonMapper.Builder> customizer) {
    JsonMapper.Builder builder = codecMapper();
    customizer.accept(builder);
    return new JacksonResultCodec(builder.build());
  }

  static JsonMapper.Builder baseMapper() {
    return base(JsonMapper.builder(jsonFactory()));
  }

  private static JsonFactory jsonFactory() {
    return JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxStringLength(MAX_RESULT_CHARS)
            .maxNumberLength(MAX_RESULT_CHARS)
            .maxNameLength(MAX_RESULT_CHARS)
            .maxDocumentLength(MAX_RESULT_CHARS)
            .maxNestingDepth(MAX_NESTING_DEPTH)
            .build())
        .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
        .build();
  }

  private static JsonMapper.Builder base(JsonMapper.Builder builder) {
    return builder
        .addModule(new Jdk8Module())
        .addModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);
  }

  /**
   * The mapper of results and of recorded exception state: whatever a value class keeps in its fields
   * comes back, built through its constructor's parameter names when it has no no-argument one.
   */
  static JsonMapper.Builder resultMapper() {
    return forResults(baseMapper());
  }

  private static JsonMapper.Builder forResults(JsonMapper.Builder builder) {
    return builder
        .addModule(new ParameterNamesModule())
        .visibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY)
        // "+02:00[Europe/Paris]", not "+02:00": the zone decides later arithmetic (daylight saving)
        .enable(SerializationFeature.WRITE_DATES_WITH_ZONE_ID);
  }

  /**
   * The mapper of results: {@link #resultMapper()} with open slots ({@link ObjectSlots}) kept as they were,
   * installed first since it brings the serializer factory that the later modules add to.
   */
  static JsonMapper.Builder codecMapper() {
    return forResults(base(ObjectSlots.install(JsonMapper.builder(jsonFactory()))));
  }

  @Override
  public String encode(Object value, Type declaredType) {
    String written;
    try {
      written = writers.computeIfAbsent(declaredType, t -> mapper.writerFor(mapper.constructType(t)))
          .writeValueAsString(value);
    } catch (Exception e) {
      throw new IdempotencyResultException(cannotEncode(value, declaredType, e), e);
    }
    // stores keep text as UTF-8, which has no lone surrogates: spell them as JSON escapes
    String json = JsonText.escapeLoneSurrogates(written);
    if (json.length() > MAX_RESULT_CHARS) {
      throw new IdempotencyResultException(
          "A result of type " + value.getClass().getName() + " is " + json.length() + " characters of JSON, more"
              + " than the " + MAX_RESULT_CHARS + " a recorded result may have; it was not recorded", null);
    }
    if (!json.equals(written)) {
      // rare (a lone surrogate was escaped), so worth reading back once: never record what no replay reads
      try {
        decode(json, declaredType);
      } catch (IdempotencyResultException e) {
        throw new IdempotencyResultException("A result of type " + value.getClass().getName() + " holds a lone"
            + " surrogate that would not read back from its JSON; it was not recorded", e);
      }
    }
    return json;
  }

  private static String cannotEncode(Object value, Type declaredType, Exception e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof ObjectSlotValues.Refused refused) {
        return "Cannot record a result of " + declaredType.getTypeName() + ": at " + where(e) + ", "
            + refused.getMessage() + ", which a replay could not give back as it was. An open slot (declared Object,"
            + " Number or Serializable, or a wildcard) keeps only strings, numbers, booleans, java.time values, UUIDs"
            + " and the JDK's lists, sets and maps of such; declare a concrete type there instead (the field, record"
            + " component or type argument, as in Map<String, Money>)";
      }
    }
    return "Cannot encode a result of type " + value.getClass().getName() + " as JSON of " + declaredType.getTypeName()
        + ": " + e.getClass().getSimpleName();
  }

  /** Where in the result a write failed: "the result", then properties, indexes and map keys. */
  private static String where(Exception e) {
    StringBuilder sb = new StringBuilder("the result");
    if (e instanceof JsonMappingException m) {
      for (JsonMappingException.Reference r : m.getPath()) {
        if (r.getIndex() >= 0) {
          sb.append('[').append(r.getIndex()).append(']');
        } else if (r.getFrom() instanceof java.util.Map) {
          String key = String.valueOf(r.getFieldName());
          sb.append("[\"").append(key.length() > 40 ? key.substring(0, 40) + "…" : key).append("\"]");
        } else if (r.getFieldName() != null) {
          sb.append('.').append(r.getFieldName());
        }
      }
    }
    return sb.toString();
  }

  /**
   * Refuses a type whose values Jackson cannot build from JSON: an interface or abstract class, a class
   * with no creator, or a container or bean property of such a type. Cached per type.
   */
  @Override
  public void checkDecodable(Type declaredType) {
    String problem = undecodable.computeIfAbsent(declaredType, t -> {
      String p = DecodableTypes.problem(mapper, t);
      return p == null ? "" : p;
    });
    if (!problem.isEmpty()) {
      throw new IllegalArgumentException(problem);
    }
  }

  @Override
  public Object decode(String data, Type declaredType) {
    ObjectReader reader = readers.computeIfAbsent(declaredType, t -> mapper.readerFor(mapper.constructType(t)));
    try {
      return reader.readValue(data);
    } catch (Exception e) {
      // a map key holding a lone surrogate is stored escaped, which Jackson refuses in a name (only there):
      // read such text once more with the character itself, at no cost to any other replay
      String raw = JsonText.unescapeSurrogates(data);
      if (!raw.equals(data)) {
        try {
          return reader.readValue(raw);
        } catch (Exception again) {
          throw cannotDecode(declaredType, again);
        }
      }
      throw cannotDecode(declaredType, e);
    }
  }

  private static IdempotencyResultException cannotDecode(Type declaredType, Exception e) {
    return new IdempotencyResultException(
        "Cannot decode a stored result as " + declaredType.getTypeName() + ": " + e.getClass().getSimpleName(), e);
  }
}
