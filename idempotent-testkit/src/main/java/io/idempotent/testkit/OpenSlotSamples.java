package io.idempotent.testkit;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
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
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomGenerator;
import net.jqwik.api.sessions.JqwikSession;

/**
 * Values a slot declared {@code Object} keeps (the library's closed list: the JDK's scalars, java.time
 * values, UUIDs, and its lists, sets and maps of them, mutable and unmodifiable), generated with jqwik
 * arbitraries, and the check that a replayed value is the same at every depth, classes included.
 *
 * <p>The samples are drawn from a seeded {@link Random} inside an ordinary JUnit test, so that a store's
 * contract subclass needs no second test engine and keeps its own set-up and clean-up; a failure names
 * the seed and the sample. Thread-safe (immutable).
 */
final class OpenSlotSamples {

  private static final int GEN_SIZE = 100;

  private OpenSlotSamples() {}

  /**
   * Draws {@code tries} samples of {@code arbitrary} from a random seed and hands each to {@code check};
   * a failure is rethrown naming the seed, the try and the sample.
   */
  static <T> void forAll(Arbitrary<T> arbitrary, int tries, Consumer<T> check) {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    // a session gives the arbitraries the context they otherwise get from jqwik's engine
    JqwikSession.start(Long.toString(seed));
    try {
      RandomGenerator<T> generator = arbitrary.generator(GEN_SIZE);
      for (int i = 0; i < tries; i++) {
        T sample = generator.next(random).value();
        try {
          check.accept(sample);
        } catch (AssertionError | RuntimeException e) {
          throw new AssertionError("try " + i + " of seed " + seed + " failed for " + describe(sample) + ": " + e, e);
        }
      }
    } finally {
      JqwikSession.finish();
    }
  }

  /** Text that shows the lone surrogates and classes of a sample. */
  static String describe(Object value) {
    if (value == null) {
      return "null";
    }
    String text = String.valueOf(value);
    StringBuilder shown = new StringBuilder();
    text.chars().forEach(c -> shown.append(Character.isSurrogate((char) c) ? String.format("\\u%04X", c) : (char) c));
    return value.getClass().getName() + " " + (shown.length() > 2000 ? shown.substring(0, 2000) + "…" : shown);
  }

  /** Strings of every kind, lone surrogates and NUL included. */
  static Arbitrary<String> strings() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(8),
        Arbitraries.strings().withChars('a', '\\', '"', '\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFD')
            .withCharRange('\uD83D', '\uD83D').withCharRange('\uDE00', '\uDE01').ofMaxLength(6),
        Arbitraries.of("", "\\uD800", "k\uDC00", "\uD83D\uDE00", "\uDE00\uD83D", "ключ", "null"));
  }

  /** A value of the closed list or a container of such, nested up to {@code depth} containers deep. */
  static Arbitrary<Object> values(int depth) {
    if (depth == 0) {
      return scalars().injectNull(0.05);
    }
    Arbitrary<Object> inner = values(depth - 1);
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, scalars().injectNull(0.05)),
        net.jqwik.api.Tuple.of(1, lists(inner)),
        net.jqwik.api.Tuple.of(1, sets(inner)),
        net.jqwik.api.Tuple.of(1, maps(inner)));
  }

  @SuppressWarnings("unchecked")
  private static Arbitrary<Object> scalars() {
    Arbitrary<ZoneId> zones = Arbitraries.of("UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata",
        "Australia/Lord_Howe", "Z", "+05:45", "-12:00", "+14:00").map(ZoneId::of);
    Arbitrary<Instant> instants = Arbitraries.oneOf(
        Arbitraries.longs().between(-62_135_596_800L, 253_402_300_799L)
            .flatMap(s -> Arbitraries.integers().between(0, 999_999_999).map(n -> Instant.ofEpochSecond(s, n))),
        Arbitraries.of(Instant.EPOCH, Instant.ofEpochSecond(-1, 999_999_999)));
    Arbitrary<LocalDateTime> localDateTimes = Combinators.combine(instants, zones)
        .as((i, z) -> LocalDateTime.ofInstant(i, z));
    return Arbitraries.oneOf(List.of(
        strings().map(s -> s),
        Arbitraries.of(true, false).map(b -> b),
        Arbitraries.chars().map(c -> c),
        Arbitraries.bytes().map(b -> b),
        Arbitraries.shorts().map(s -> s),
        Arbitraries.oneOf(Arbitraries.integers(), Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1))
            .map(i -> i),
        Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(-1000, 1000),
            Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, (long) Integer.MAX_VALUE + 1)).map(l -> l),
        Arbitraries.oneOf(Arbitraries.floats(), Arbitraries.of(Float.NaN, Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE)).map(f -> f),
        Arbitraries.oneOf(Arbitraries.doubles(), Arbitraries.of(Double.NaN, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, -0.0, 0.0, 1.0, Double.MIN_VALUE, Double.MAX_VALUE, 1e21)).map(d -> d),
        Arbitraries.bigIntegers().between(BigInteger.TWO.pow(100).negate(), BigInteger.TWO.pow(100)).map(b -> b),
        Combinators.combine(Arbitraries.bigIntegers().between(BigInteger.valueOf(-10_000_000_000L),
                BigInteger.valueOf(10_000_000_000L)), Arbitraries.integers().between(-20, 20))
            .as((unscaled, scale) -> (Object) new BigDecimal(unscaled, scale)),
        Arbitraries.of(new BigDecimal("19.990"), new BigDecimal("0.00"), new BigDecimal("-0.0"),
            new BigDecimal("1E+3"), new BigDecimal("1E-40")).map(b -> b),
        Arbitraries.randomValue(r -> (Object) new UUID(r.nextLong(), r.nextLong())),
        instants.map(i -> i),
        localDateTimes.map(LocalDateTime::toLocalDate),
        localDateTimes.map(LocalDateTime::toLocalTime),
        localDateTimes.map(t -> t),
        Combinators.combine(instants, zones).as((i, z) -> (Object) ZonedDateTime.ofInstant(i, z)),
        Combinators.combine(instants, zones).as((i, z) -> (Object) OffsetDateTime.ofInstant(i, z)),
        Combinators.combine(instants, zones).as((i, z) -> (Object) OffsetTime.ofInstant(i, z)),
        Combinators.combine(Arbitraries.longs().between(-1_000_000_000_000L, 1_000_000_000_000L),
            Arbitraries.integers().between(0, 999_999_999)).as((s, n) -> (Object) Duration.ofSeconds(s, n)),
        Combinators.combine(Arbitraries.integers().between(-500, 500), Arbitraries.integers().between(-30, 30),
            Arbitraries.integers().between(-400, 400)).as((y, m, d) -> (Object) Period.of(y, m, d)),
        localDateTimes.map(t -> Year.of(t.getYear())),
        localDateTimes.map(t -> YearMonth.of(t.getYear(), t.getMonth())),
        localDateTimes.map(t -> MonthDay.of(t.getMonth(), t.getDayOfMonth())),
        Arbitraries.of(DayOfWeek.class).map(d -> d),
        Arbitraries.of(Month.class).map(m -> m),
        zones.map(z -> z)));
  }

  @SuppressWarnings("JdkObsolete") // applications pass LinkedLists too: the samples must hold every kind
  private static Arbitrary<Object> lists(Arbitrary<Object> elements) {
    Arbitrary<List<Object>> some = elements.list().ofMaxSize(4);
    Arbitrary<List<Object>> nonNull = elements.filter(Objects::nonNull).list().ofMaxSize(4);
    return Arbitraries.oneOf(List.of(
        some.map(ArrayList::new),
        some.map(LinkedList::new),
        some.map(l -> Arrays.asList(l.toArray())),
        some.map(l -> l.stream().toList()),
        nonNull.map(List::copyOf),
        nonNull.map(l -> Collections.unmodifiableList(new ArrayList<>(l))),
        nonNull.map(l -> Collections.unmodifiableList(new LinkedList<>(l))),
        elements.map(Collections::singletonList),
        Arbitraries.just(Collections.emptyList()).map(l -> l)));
  }

  private static Arbitrary<Object> sets(Arbitrary<Object> elements) {
    Arbitrary<Set<Object>> some = elements.set().ofMaxSize(4);
    Arbitrary<Set<Object>> nonNull = elements.filter(Objects::nonNull).set().ofMaxSize(4);
    Arbitrary<Set<String>> sortable = strings().set().ofMaxSize(4);
    return Arbitraries.oneOf(List.of(
        some.map(HashSet::new),
        some.map(LinkedHashSet::new),
        nonNull.map(Set::copyOf),
        some.map(s -> Collections.unmodifiableSet(new HashSet<>(s))),
        sortable.map(TreeSet::new),
        sortable.map(s -> Collections.unmodifiableSortedSet(new TreeSet<>(s))),
        sortable.map(s -> Collections.unmodifiableNavigableSet(new TreeSet<>(s))),
        elements.map(Collections::singleton),
        Arbitraries.just(Collections.emptySet()).map(s -> s)));
  }

  private static Arbitrary<Object> maps(Arbitrary<Object> values) {
    Arbitrary<Map<String, Object>> some = Arbitraries.maps(strings(), values).ofMaxSize(4);
    Arbitrary<Map<String, Object>> nonNull = Arbitraries.maps(strings(), values.filter(Objects::nonNull)).ofMaxSize(4);
    Function<Map<String, Object>, Object> sorted = TreeMap::new;
    return Arbitraries.oneOf(List.of(
        some.map(HashMap::new),
        some.map(LinkedHashMap::new),
        some.map(sorted),
        nonNull.map(Map::copyOf),
        some.map(m -> Collections.unmodifiableMap(new HashMap<>(m))),
        some.map(m -> Collections.unmodifiableSortedMap(new TreeMap<>(m))),
        some.map(m -> Collections.unmodifiableNavigableMap(new TreeMap<>(m))),
        Combinators.combine(strings(), values).as(Collections::singletonMap),
        Arbitraries.just(Collections.emptyMap()).map(m -> m)));
  }

  /**
   * Fails unless {@code actual} equals {@code expected} with the same class at every depth: each element,
   * key and value of a container against its equal in the other.
   */
  static void assertSameDeep(Object expected, Object actual, String path) {
    if (expected == null || actual == null) {
      if (expected != actual) {
        throw new AssertionError(path + ": expected " + describe(expected) + " but got " + describe(actual));
      }
      return;
    }
    if (expected.getClass() != actual.getClass()) {
      throw new AssertionError(path + ": expected a " + expected.getClass().getName() + " but got a "
          + actual.getClass().getName() + " (" + describe(actual) + ")");
    }
    if (!expected.equals(actual)) {
      throw new AssertionError(path + ": expected " + describe(expected) + " but got " + describe(actual));
    }
    if (expected instanceof List<?> e) {
      List<?> a = (List<?>) actual;
      for (int i = 0; i < e.size(); i++) {
        assertSameDeep(e.get(i), a.get(i), path + "[" + i + "]");
      }
    } else if (expected instanceof Set<?> e) {
      for (Object element : e) {
        assertSameDeep(element, equalIn((Set<?>) actual, element), path + "{" + describe(element) + "}");
      }
    } else if (expected instanceof Map<?, ?> e) {
      Map<?, ?> a = (Map<?, ?>) actual;
      for (Map.Entry<?, ?> entry : e.entrySet()) {
        Object key = entry.getKey();
        assertSameDeep(key, equalIn(a.keySet(), key), path + ".key");
        assertSameDeep(entry.getValue(), a.get(key), path + "[" + describe(key) + "]");
      }
    }
  }

  /** The element of {@code set} equal to {@code element} (the set's own, not {@code element}). */
  private static Object equalIn(Set<?> set, Object element) {
    for (Object candidate : set) {
      if (Objects.equals(candidate, element)) {
        return candidate;
      }
    }
    throw new AssertionError("no element equal to " + describe(element));
  }
}
