package io.idempotent.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Function;

/**
 * The closed list of what an open slot (one declared {@code Object}, {@code Number} or {@code
 * Serializable}, see {@link ObjectSlots}) keeps, each with the short tag that stands for
 * it in stored JSON: a value of an exact class on this list comes back as an equal value of the same
 * class; any other value is refused when the call is recorded. Stored data names a tag from this list,
 * never a class, so reading it can build nothing else. Thread-safe (immutable tables).
 *
 * <p>Strings, booleans, integers and finite doubles are written as plain JSON and need no tag. The JDK's
 * unmodifiable collections come back as the same class: a list of the {@code List.of} family as {@code
 * List.copyOf} of its elements, or as {@code Stream.toList()} when it holds a null or is of the class for
 * many elements with one or two (only {@code Stream.toList()} makes those); a set or map of the {@code
 * Set.of}/{@code Map.of} families by {@code Set.copyOf}/{@code Map.copyOf}, which pick the class by size
 * as the originals did; an empty or singleton collection of {@code Collections} as such; a {@code
 * Collections.unmodifiable*} wrapper around a new collection of the kind it wraps (a {@code LinkedList}
 * for the sequential list wrapper, an {@code ArrayList} for the other, a {@code TreeSet} or {@code TreeMap}
 * for the sorted ones, else a {@code LinkedHashSet} or {@code LinkedHashMap}).
 */
@SuppressWarnings("JdkObsolete") // the JDK's collections as applications pass them, LinkedList among them
final class ObjectSlotValues {

  /** How the value after a tag is read back: a scalar as its class, or the elements of a container. */
  sealed interface Kind permits Scalar, Sequence, Mapping {}

  /** A value read as {@code type} by the mapper's own deserializer for it. */
  record Scalar(Class<?> type) implements Kind {}

  /** A JSON array of slot values, made into the collection by {@code build}. */
  record Sequence(Function<List<Object>, Object> build) implements Kind {}

  /** A JSON object of string keys to slot values, made into the map by {@code build}. */
  record Mapping(Function<Map<String, Object>, Object> build) implements Kind {}

  /** A value that an open slot cannot keep; carries what the message says of it. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String what) {
      super(what, null, false, false);
    }
  }

  private static final Map<Class<?>, String> TAGS = new HashMap<>();
  private static final Map<String, Kind> KINDS = new HashMap<>();

  static {
    for (Class<?> c : List.of(String.class, Boolean.class, Character.class, Byte.class, Short.class, Integer.class,
        Long.class, Float.class, Double.class, BigInteger.class, BigDecimal.class, UUID.class, Instant.class,
        LocalDate.class, LocalTime.class, LocalDateTime.class, OffsetDateTime.class, OffsetTime.class,
        ZonedDateTime.class, Duration.class, Period.class, Year.class, YearMonth.class, MonthDay.class,
        DayOfWeek.class, Month.class, ZoneOffset.class)) {
      scalar(c.getSimpleName(), c, c);
    }
    scalar("ZoneId", ZoneId.of("Europe/Paris").getClass(), ZoneId.class); // the JDK's region-based zone class

    sequence("ArrayList", ArrayList::new, new ArrayList<>());
    sequence("LinkedList", LinkedList::new, new LinkedList<>());
    sequence("HashSet", HashSet::new, new HashSet<>());
    sequence("LinkedHashSet", LinkedHashSet::new, new LinkedHashSet<>());
    sequence("TreeSet", TreeSet::new, new TreeSet<>());
    sequence("Arrays.asList", l -> Arrays.asList(l.toArray()), Arrays.asList());
    // the JDK's two List.of classes: one for one or two elements, one for the others (and for every
    // Stream.toList(), which allows nulls); List.copyOf picks the class by size
    sequence("List12", List::copyOf, List.of(1));
    sequence("ListN", l -> l.contains(null) || l.size() == 1 || l.size() == 2 ? l.stream().toList() : List.copyOf(l),
        List.of(), List.of(1, 2, 3));
    sequence("Set.of", Set::copyOf, Set.of(), Set.of(1), Set.of(1, 2, 3));
    sequence("emptyList", l -> only(l, 0, Collections.emptyList()), Collections.emptyList());
    sequence("emptySet", l -> only(l, 0, Collections.emptySet()), Collections.emptySet());
    sequence("singletonList", l -> Collections.singletonList(only(l, 1, null)), Collections.singletonList(1));
    sequence("singleton", l -> Collections.singleton(only(l, 1, null)), Collections.singleton(1));
    sequence("unmodifiableList", l -> Collections.unmodifiableList(new ArrayList<>(l)),
        Collections.unmodifiableList(new ArrayList<>()));
    sequence("unmodifiableLinkedList", l -> Collections.unmodifiableList(new LinkedList<>(l)),
        Collections.unmodifiableList(new LinkedList<>()));
    sequence("unmodifiableSet", l -> Collections.unmodifiableSet(new LinkedHashSet<>(l)),
        Collections.unmodifiableSet(new HashSet<>()));
    sequence("unmodifiableSortedSet", l -> Collections.unmodifiableSortedSet(new TreeSet<>(l)),
        Collections.unmodifiableSortedSet(new TreeSet<>()));
    sequence("unmodifiableNavigableSet", l -> Collections.unmodifiableNavigableSet(new TreeSet<>(l)),
        Collections.unmodifiableNavigableSet(new TreeSet<>()));

    mapping("HashMap", HashMap::new, new HashMap<>());
    mapping("LinkedHashMap", m -> m, new LinkedHashMap<>());
    mapping("TreeMap", TreeMap::new, new TreeMap<>());
    mapping("Map.of", Map::copyOf, Map.of(), Map.of(1, 1), Map.of(1, 1, 2, 2));
    mapping("emptyMap", m -> only(m.entrySet(), 0, Collections.emptyMap()), Collections.emptyMap());
    mapping("singletonMap", m -> {
      Map.Entry<String, Object> e = only(m.entrySet(), 1, null);
      return Collections.singletonMap(e.getKey(), e.getValue());
    }, Collections.singletonMap(1, 1));
    mapping("unmodifiableMap", m -> Collections.unmodifiableMap(m), Collections.unmodifiableMap(new HashMap<>()));
    mapping("unmodifiableSortedMap", m -> Collections.unmodifiableSortedMap(new TreeMap<>(m)),
        Collections.unmodifiableSortedMap(new TreeMap<>()));
    mapping("unmodifiableNavigableMap", m -> Collections.unmodifiableNavigableMap(new TreeMap<>(m)),
        Collections.unmodifiableNavigableMap(new TreeMap<>()));
  }

  private ObjectSlotValues() {}

  private static void scalar(String tag, Class<?> exact, Class<?> readAs) {
    add(tag, new Scalar(readAs), exact);
  }

  private static void sequence(String tag, Function<List<Object>, Object> build, Object... samples) {
    add(tag, new Sequence(build), Arrays.stream(samples).map(Object::getClass).toArray(Class<?>[]::new));
  }

  private static void mapping(String tag, Function<Map<String, Object>, Object> build, Object... samples) {
    add(tag, new Mapping(build), Arrays.stream(samples).map(Object::getClass).toArray(Class<?>[]::new));
  }

  private static void add(String tag, Kind kind, Class<?>... classes) {
    KINDS.put(tag, kind);
    for (Class<?> c : classes) {
      TAGS.put(c, tag);
    }
  }

  /** The one element of a container read for a singleton (or the empty constant when {@code n} is 0). */
  @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"}) // the caller's slot type, checked by the caller
  private static <T> T only(java.util.Collection<?> elements, int n, Object empty) {
    if (elements.size() != n) {
      throw new IllegalArgumentException("a tag for " + n + " element(s) holds " + elements.size());
    }
    return (T) (n == 0 ? empty : elements.iterator().next());
  }

  /**
   * The tag of {@code value}, which sits in an open slot.
   *
   * @throws Refused if its class is not on the list, or it is a sorted collection with a comparator
   */
  static String tag(Object value) {
    String tag = TAGS.get(value.getClass());
    if (tag == null) {
      throw new Refused("an open slot holds a " + value.getClass().getName());
    }
    if ((value instanceof SortedSet<?> s && s.comparator() != null)
        || (value instanceof SortedMap<?, ?> m && m.comparator() != null)) {
      throw new Refused("an open slot holds a " + value.getClass().getName() + " with a comparator");
    }
    return tag;
  }

  /** What {@code tag} stands for, or null when it is none of the list's. */
  static Kind kind(String tag) {
    return KINDS.get(tag);
  }
}
