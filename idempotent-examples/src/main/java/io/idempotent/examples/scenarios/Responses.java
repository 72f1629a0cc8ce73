package io.idempotent.examples.scenarios;

import io.idempotent.examples.shop.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Describes what clients saw. */
final class Responses {

  private Responses() {}

  /** In order: {@code "503, 201"}. */
  static String sequence(List<HttpResponse> responses) {
    return responses.stream().map(HttpResponse::summary).collect(Collectors.joining(", "));
  }

  /** Grouped, in order of first appearance: {@code "1 x 201, 6 x 409, 1 x 201 replayed"}. */
  static String counts(List<HttpResponse> responses) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    responses.forEach(r -> counts.merge(r.summary(), 1, Integer::sum));
    return counts.entrySet().stream().map(e -> e.getValue() + " x " + e.getKey()).collect(Collectors.joining(", "));
  }

  /** How many responses have {@code status}. */
  static long withStatus(List<HttpResponse> responses, int status) {
    return responses.stream().filter(r -> r.status() == status).count();
  }
}
