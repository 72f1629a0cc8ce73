package io.idempotent.assemblies;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A greedy, deterministic all-pairs cover: from the candidates (every applicable combination, in a fixed
 * order), it takes the one that holds the most pairs of values not yet held, the first of equals, until every
 * pair that some candidate holds is held. Pairs no candidate holds (a setting a database does not have) are not
 * asked for.
 */
final class Pairwise {

  private Pairwise() {}

  /** Two values of two dimensions, by their positions in {@code values}. */
  private record Pair(int first, Object firstValue, int second, Object secondValue) {}

  static <T> List<T> cover(List<T> candidates, Function<T, List<?>> values) {
    Set<Pair> uncovered = new HashSet<>();
    List<List<Pair>> pairsOf = new ArrayList<>(candidates.size());
    for (T candidate : candidates) {
      List<Pair> pairs = pairs(values.apply(candidate));
      pairsOf.add(pairs);
      uncovered.addAll(pairs);
    }
    List<T> chosen = new ArrayList<>();
    boolean[] taken = new boolean[candidates.size()];
    while (!uncovered.isEmpty()) {
      int best = -1;
      int bestGain = 0;
      for (int i = 0; i < candidates.size(); i++) {
        if (taken[i]) {
          continue;
        }
        int gain = 0;
        for (Pair p : pairsOf.get(i)) {
          if (uncovered.contains(p)) {
            gain++;
          }
        }
        if (gain > bestGain) {
          best = i;
          bestGain = gain;
        }
      }
      taken[best] = true;
      chosen.add(candidates.get(best));
      pairsOf.get(best).forEach(uncovered::remove);
    }
    return chosen;
  }

  private static List<Pair> pairs(List<?> values) {
    List<Pair> pairs = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      for (int j = i + 1; j < values.size(); j++) {
        pairs.add(new Pair(i, values.get(i), j, values.get(j)));
      }
    }
    return pairs;
  }
}
