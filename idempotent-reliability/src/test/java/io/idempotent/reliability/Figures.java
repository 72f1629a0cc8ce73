package io.idempotent.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The figures of one test run, printed as one line starting with {@code RELIABILITY-FIGURES} and
 * appended to {@code target/reliability-figures.txt}, so that docs/RELIABILITY.md can be checked
 * against a run. Fields that do not apply are 0 (processes and threads default to 1: the test itself). Not thread-safe: fill it from the test thread.
 */
final class Figures {

  static final Path FILE = Path.of("target", "reliability-figures.txt");
  private static final String[] FIELDS = {"processes", "threads", "keys", "duplicatesSent", "executions",
      "crashes", "faults", "badInputs", "lost", "duplicated"};

  private final String test;
  private final Map<String, Object> values = new LinkedHashMap<>();

  private Figures(String test) {
    this.test = test;
    for (String f : FIELDS) {
      values.put(f, 0);
    }
    values.put("processes", 1); // the test JVM itself, unless a test starts more
    values.put("threads", 1);
  }

  static Figures of(String test) {
    return new Figures(test);
  }

  Figures set(String field, Object value) {
    values.put(field, value);
    return this;
  }

  Figures add(String field, long delta) {
    values.merge(field, delta, (a, b) -> ((Number) a).longValue() + ((Number) b).longValue());
    return this;
  }

  /** Prints and records the line; returns it. */
  String report() {
    StringBuilder sb = new StringBuilder("RELIABILITY-FIGURES test=").append(test);
    values.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
    String line = sb.toString();
    System.out.println(line);
    try {
      Files.createDirectories(FILE.getParent());
      Files.writeString(FILE, line + System.lineSeparator(), StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return line;
  }
}
