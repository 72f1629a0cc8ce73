package io.idempotent.internal;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells from a declared result type alone whether no value of it can change after it is returned, so
 * that a store may hand the very object it recorded to every replay. That holds for strings, primitives
 * and their boxes, enums, java.time values, {@code BigDecimal}, {@code BigInteger}, {@code UUID}, records
 * whose components are all such (by their declared generic types, recursively) and {@code Optional} of
 * such. Anything else, including every collection and interface type (the declaration cannot tell
 * {@code List.of} from an {@code ArrayList}), is kept encoded and decoded afresh for each replay: what a
 * caller does with a returned object must never reach a later replay. Thread-safe.
 */
final class ImmutableTypes {

  private static final Set<Class<?>> VALUES = Set.of(
      String.class, Boolean.class, Character.class, Byte.class, Short.class, Integer.class, Long.class,
      Float.class, Double.class, BigDecimal.class, BigInteger.class, UUID.class, Instant.class,
      LocalDate.class, LocalTime.class, LocalDateTime.class, OffsetDateTime.class, OffsetTime.class,
      ZonedDateTime.class, Duration.class, Period.class, Year.class, YearMonth.class, MonthDay.class);

  /** Beyond this depth of nested generic records the answer is "not known immutable". */
  private static final int MAX_DEPTH = 32;
  /** Generic declarations seen so far; bounded, since a caller may build type objects per call. */
  private static final int MAX_CACHED_GENERIC = 1024;

  private static final ClassValue<Boolean> CLASSES = new ClassValue<>() {
    @Override
    protected Boolean computeValue(Class<?> type) {
      return check(type, Map.of(), new HashSet<>(), 0);
    }
  };
  private static final ConcurrentHashMap<Type, Boolean> GENERIC = new ConcurrentHashMap<>();

  private ImmutableTypes() {}

  /** A type argument together with the bindings of the declaration it appears in. */
  private record Bound(Type type, Map<TypeVariable<?>, Bound> bindings) {}

  /** Whether every value of {@code declared} is immutable; decided once per type. */
  static boolean isImmutable(Type declared) {
    if (declared instanceof Class<?> c) {
      return CLASSES.get(c);
    }
    Boolean known = GENERIC.get(declared);
    if (known == null) {
      known = check(declared, Map.of(), new HashSet<>(), 0);
      if (GENERIC.size() < MAX_CACHED_GENERIC) {
        GENERIC.put(declared, known);
      }
    }
    return known;
  }

  private static boolean check(Type t, Map<TypeVariable<?>, Bound> bindings, Set<Bound> visiting, int depth) {
    if (depth > MAX_DEPTH) {
      return false;
    }
    if (t instanceof TypeVariable<?> v) {
      Bound b = bindings.get(v);
      return b != null && check(b.type(), b.bindings(), visiting, depth + 1);
    }
    if (t instanceof Class<?> c) {
      if (c.isPrimitive() || c.isEnum() || VALUES.contains(c) || ZoneId.class.isAssignableFrom(c)) {
        return true;
      }
      return c.isRecord() && checkRecord(c, t, Map.of(), visiting, depth);
    }
    if (t instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw) {
      Type[] args = p.getActualTypeArguments();
      TypeVariable<?>[] params = raw.getTypeParameters();
      Map<TypeVariable<?>, Bound> inner = new HashMap<>();
      for (int i = 0; i < params.length && i < args.length; i++) {
        inner.put(params[i], new Bound(args[i], bindings));
      }
      if (raw == Optional.class) {
        return check(params[0], inner, visiting, depth + 1);
      }
      return raw.isRecord() && checkRecord(raw, t, inner, visiting, depth);
    }
    return false; // wildcards, arrays, anything else: the value's class is not known
  }

  /** A record is as immutable as its components; a record met again while being checked adds nothing. */
  private static boolean checkRecord(
      Class<?> record, Type declared, Map<TypeVariable<?>, Bound> bindings, Set<Bound> visiting, int depth) {
    if (!visiting.add(new Bound(declared, bindings))) {
      return true;
    }
    for (RecordComponent rc : record.getRecordComponents()) {
      if (!check(rc.getGenericType(), bindings, visiting, depth + 1)) {
        return false;
      }
    }
    return true;
  }
}
