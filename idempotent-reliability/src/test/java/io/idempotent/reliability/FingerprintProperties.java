package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.internal.Fingerprints;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The payload fingerprint is canonical (the iteration order of maps and sets does not matter) and
 * sensitive to every argument (changing any one of them, or moving a boundary between two, changes it).
 */
class FingerprintProperties {

  record Line(String sku, int quantity) {}

  private static final AtomicLong TRIED = new AtomicLong();

  @Property(tries = 500)
  void mapsAndSets_giveTheSameFingerprint_inAnyIterationOrder(
      @ForAll("maps") Map<String, Integer> map, @ForAll long seed) {
    TRIED.incrementAndGet();
    Map<String, Integer> a = shuffled(map, seed);
    Map<String, Integer> b = shuffled(map, seed + 1);
    Set<String> setA = new LinkedHashSet<>(a.keySet());
    Set<String> setB = new LinkedHashSet<>(b.keySet());
    Object[] argsA = {a, setA, List.of(a, Map.of("nested", a)), new TreeMap<>(map)};
    Object[] argsB = {b, setB, List.of(b, Map.of("nested", b)), new HashMap<>(map)};
    assertThat(Fingerprints.of(argsA)).isEqualTo(Fingerprints.of(argsB));
  }

  @Property(tries = 1000)
  void changingAnyOneArgument_changesTheFingerprint(
      @ForAll("argumentLists") List<Object> args, @ForAll @IntRange(min = 0, max = 4) int which,
      @ForAll("values") Object replacement) {
    TRIED.incrementAndGet();
    int i = which % args.size();
    Assume.that(!java.util.Objects.equals(args.get(i), replacement));
    List<Object> changed = new ArrayList<>(args);
    changed.set(i, replacement);
    assertThat(Fingerprints.of(changed.toArray())).isNotEqualTo(Fingerprints.of(args.toArray()));
  }

  @Property(tries = 500)
  void movingTheBoundaryBetweenTwoStrings_changesTheFingerprint(
      @ForAll("text") String s, @ForAll @IntRange(min = 0, max = 40) int cut1, @ForAll @IntRange(min = 0, max = 40) int cut2) {
    TRIED.incrementAndGet();
    int a = Math.min(cut1, s.length());
    int b = Math.min(cut2, s.length());
    Assume.that(a != b);
    String fa = Fingerprints.of(new Object[] {s.substring(0, a), s.substring(a)});
    String fb = Fingerprints.of(new Object[] {s.substring(0, b), s.substring(b)});
    assertThat(fa).isNotEqualTo(fb);
  }

  @Property(tries = 300)
  void nullTheTextNullAndAMissingArgument_areAllDifferent(@ForAll("text") String s) {
    TRIED.incrementAndGet();
    Set<String> distinct = Set.of(
        Fingerprints.of(new Object[] {s, null}),
        Fingerprints.of(new Object[] {s, "null"}),
        Fingerprints.of(new Object[] {s}),
        Fingerprints.of(new Object[] {s, ""}));
    assertThat(distinct).hasSize(4);
  }

  private static Map<String, Integer> shuffled(Map<String, Integer> map, long seed) {
    List<Map.Entry<String, Integer>> entries = new ArrayList<>(map.entrySet());
    Collections.shuffle(entries, new Random(seed));
    Map<String, Integer> out = new LinkedHashMap<>();
    entries.forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  @Provide
  Arbitrary<String> text() {
    return Arbitraries.strings().all().ofMaxLength(30);
  }

  @Provide
  Arbitrary<Map<String, Integer>> maps() {
    return Arbitraries.maps(text(), Arbitraries.integers()).ofMaxSize(12);
  }

  @Provide
  Arbitrary<Object> values() {
    return Arbitraries.oneOf(
        text().map(s -> (Object) s),
        Arbitraries.integers().map(i -> (Object) i),
        Arbitraries.of(true, false).map(b -> (Object) b),
        maps().map(m -> (Object) m),
        text().list().ofMaxSize(4).map(l -> (Object) l),
        Combinators.combine(Arbitraries.strings().all().ofMaxLength(8), Arbitraries.integers())
            .as(Line::new).map(l -> (Object) l),
        Arbitraries.just(null));
  }

  @Provide
  Arbitrary<List<Object>> argumentLists() {
    return values().list().ofMinSize(1).ofMaxSize(5);
  }

  @AfterContainer
  static void report() {
    Figures.of("FingerprintProperties").set("badInputs", TRIED.get()).report();
  }
}
