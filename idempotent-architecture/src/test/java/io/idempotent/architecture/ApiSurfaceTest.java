package io.idempotent.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The public API, pinned: for every package the published modules export, the list of its public types
 * and their public and protected members is checked in under {@code src/test/resources/api/}. Adding,
 * removing or changing any of them fails this test until the list changes in the same commit, so that
 * every change of the API is one a reviewer sees; no member is there for tests only (docs/DESIGN.md, "API
 * surface").
 */
class ApiSurfaceTest {

  private static final List<ProjectModule> PUBLISHED = List.of(ProjectModule.ASPECT, ProjectModule.CAFFEINE,
      ProjectModule.JDBI, ProjectModule.REDIS, ProjectModule.HTTP, ProjectModule.MICROMETER, ProjectModule.TESTKIT,
      ProjectModule.SPRING);

  private static final Path WRITTEN = Path.of("target", "api");

  @Test
  void exportedPackages_areTheCheckedInOnes() throws IOException {
    SortedSet<String> exported = new TreeSet<>();
    PUBLISHED.forEach(m -> exported.addAll(m.exportedPackages()));
    assertThat(exported).as("packages with a checked-in surface, src/test/resources/api/packages.txt")
        .containsExactlyElementsOf(expected("packages"));
  }

  @Test
  void publicSurface_ofEveryExportedPackage_isTheCheckedInOne() throws IOException {
    List<String> changed = new ArrayList<>();
    for (String pkg : expected("packages")) {
      List<String> actual = ApiSurface.of(pkg);
      List<String> expected = expected(pkg);
      if (!actual.equals(expected)) {
        Files.createDirectories(WRITTEN);
        Files.write(WRITTEN.resolve(pkg + ".txt"), actual, StandardCharsets.UTF_8);
        changed.add(pkg + ":" + difference("  only in the build: ", actual, expected)
            + difference("  only in src/test/resources/api/" + pkg + ".txt: ", expected, actual));
      }
    }
    assertThat(changed)
        .as("the public API changed; if that is meant, copy the lists the test wrote to target/api/ over"
            + " those in src/test/resources/api/ in the same commit")
        .isEmpty();
  }

  /** The lines of {@code a} that {@code b} lacks, each member with its type. */
  private static String difference(String label, List<String> a, List<String> b) {
    Set<String> only = new LinkedHashSet<>(qualified(a));
    qualified(b).forEach(only::remove);
    StringBuilder s = new StringBuilder();
    only.forEach(line -> s.append('\n').append(label).append(line));
    return s.toString();
  }

  private static List<String> qualified(List<String> lines) {
    List<String> out = new ArrayList<>();
    String type = "";
    for (String line : lines) {
      if (line.startsWith(" ")) {
        out.add(type + " { " + line.strip() + " }");
      } else {
        type = line;
        out.add(line);
      }
    }
    return out;
  }

  private static List<String> expected(String name) throws IOException {
    try (InputStream in = ApiSurfaceTest.class.getResourceAsStream("/api/" + name + ".txt")) {
      if (in == null) {
        return List.of();
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
    }
  }
}
