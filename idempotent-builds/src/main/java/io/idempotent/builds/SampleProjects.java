package io.idempotent.builds;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Writes the sample projects with the snippets of the README, the docs and the modules' READMEs in their
 * poms and Java sources, ready for the invoker to build.
 *
 * <p>Each folder of the samples directory with a {@code pom.xml} is a sample. It is copied to
 * {@code <out>/jdk17/<sample>}, and to {@code <out>/jdk25/<sample>} for the samples named for JDK 25 when
 * that JDK is there; its pom.xml is rendered by {@link Template}, with the {@code <path>} elements of the
 * file {@value #PROCESSOR_PATHS} beside it (which is not copied) for the annotation processors' placeholder.
 *
 * <p>It also writes {@code <out>/settings.xml} for the samples' builds: the build's own local repository,
 * as a file repository for releases (snapshots never come from it), is asked before Central, so that the
 * samples' local repository copies what the build already has instead of downloading it.
 *
 * <p>Arguments: the README, the samples directory, the output directory, the JDK 25 home, the samples to
 * build with JDK 25 (comma-separated), the project's version (the README's BOM version must be it), the
 * build's local repository.
 */
public final class SampleProjects {

  static final String PROCESSOR_PATHS = "annotation-processor-paths.xml";

  private SampleProjects() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 7) {
      throw new IllegalArgumentException("arguments: README samples-directory output-directory jdk25-home "
          + "jdk25-samples project-version local-repository");
    }
    Path readme = Path.of(args[0]);
    Path samples = Path.of(args[1]);
    Path out = Path.of(args[2]);
    Path jdk25 = Path.of(args[3]);
    Set<String> jdk25Samples = Arrays.stream(args[4].split(",")).map(String::trim)
        .filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    String version = args[5];
    Path localRepository = Path.of(args[6]);

    Snippets snippets = Snippets.parse(documents(readme));
    checkJavaMarked(snippets);
    checkBomVersion(readme.toString(), snippets, version);
    boolean withJdk25 = Files.isExecutable(jdk25.resolve("bin").resolve("java"));
    if (!withJdk25) {
      System.out.println("[idempotent-builds] no JDK 25 at " + jdk25 + " (set -Didempotent.jdk25.home): the "
          + "samples are built with the build's JDK only");
    }
    deleteTree(out);
    List<String> written = new ArrayList<>();
    for (Path sample : list(samples)) {
      String name = sample.getFileName().toString();
      write(sample, out.resolve("jdk17").resolve(name), snippets);
      written.add(name);
      if (withJdk25 && jdk25Samples.contains(name)) {
        write(sample, out.resolve("jdk25").resolve(name), snippets);
        written.add(name + " (JDK 25)");
      }
    }
    List<String> unused = snippets.unused();
    if (!unused.isEmpty()) {
      throw new SnippetException("no sample builds the snippets " + unused + ": a marked snippet goes into a "
          + "sample's pom.xml (<!-- README snippet: NAME -->) or Java source (// README snippet: NAME)");
    }
    Files.createDirectories(out.resolve("jdk25"));
    Files.writeString(out.resolve("settings.xml"), settings(localRepository), StandardCharsets.UTF_8);
    System.out.println("[idempotent-builds] samples with the snippets of the README and docs: " + written);
  }

  /**
   * The texts whose snippets the samples take, by file name: the README, then every page of the
   * {@code docs} folder beside it, then the README of every folder beside it (the modules'), each in the
   * order of their names.
   */
  static Map<String, String> documents(Path readme) throws IOException {
    Path root = readme.toAbsolutePath().getParent();
    List<Path> files = new ArrayList<>();
    files.add(readme.toAbsolutePath());
    Path docs = root.resolve("docs");
    if (Files.isDirectory(docs)) {
      try (Stream<Path> s = Files.list(docs)) {
        s.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(files::add);
      }
    }
    try (Stream<Path> s = Files.list(root)) {
      s.map(d -> d.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(files::add);
    }
    Map<String, String> texts = new LinkedHashMap<>();
    for (Path file : files) {
      texts.put(root.relativize(file).toString(), Files.readString(file, StandardCharsets.UTF_8));
    }
    return texts;
  }

  /**
   * Every ```java block of the README, the docs and the modules' READMEs has a marker, so that a sample
   * compiles it.
   */
  static void checkJavaMarked(Snippets snippets) {
    List<String> unmarked = snippets.unmarkedJava();
    if (!unmarked.isEmpty()) {
      throw new SnippetException("Java blocks without a marker: " + unmarked + "; put a line <!-- snippet: NAME -->"
          + " above each, and the snippet into a sample (idempotent-builds/src/samples)");
    }
  }

  /** The dependencies snippet's BOM version is the build's: else a sample would build an older release. */
  static void checkBomVersion(String source, Snippets snippets, String version) {
    List<String> bom = snippets.lines("dependencies", "dependencyManagement");
    String text = String.join("\n", bom);
    if (!text.contains("<artifactId>idempotent-bom</artifactId>")) {
      throw new SnippetException("snippet 'dependencies' of " + source + " imports no idempotent-bom");
    }
    if (!text.contains("<version>" + version + "</version>")) {
      throw new SnippetException("snippet 'dependencies' of " + source + " imports idempotent-bom in another "
          + "version than the build's " + version + ": the samples would build against that one");
    }
  }

  /** Settings that put {@code localRepository} before Central, for release artifacts and plugins. */
  static String settings(Path localRepository) {
    String url = localRepository.toAbsolutePath().toUri().toString();
    String repository = String.join("\n",
        "        <id>build-local-repository</id>",
        "        <url>" + url + "</url>",
        // a local repository keeps no checksums
        "        <releases><enabled>true</enabled><checksumPolicy>ignore</checksumPolicy></releases>",
        "        <snapshots><enabled>false</enabled></snapshots>");
    return String.join("\n",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
        "<settings>",
        "  <profiles>",
        "    <profile>",
        "      <id>build-local-repository</id>",
        "      <repositories><repository>",
        repository,
        "      </repository></repositories>",
        "      <pluginRepositories><pluginRepository>",
        repository,
        "      </pluginRepository></pluginRepositories>",
        "    </profile>",
        "  </profiles>",
        "  <activeProfiles><activeProfile>build-local-repository</activeProfile></activeProfiles>",
        "</settings>",
        "");
  }

  static void write(Path sample, Path target, Snippets snippets) throws IOException {
    Path processors = sample.resolve(PROCESSOR_PATHS);
    List<String> paths = Files.exists(processors)
        ? Files.readAllLines(processors, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank()).toList()
        : null;
    Files.walkFileTree(sample, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
        Files.createDirectories(target.resolve(sample.relativize(dir).toString()));
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Path relative = sample.relativize(file);
        Path to = target.resolve(relative.toString());
        if (relative.toString().equals("pom.xml")) {
          String pom = Template.render(file.toString(), Files.readString(file, StandardCharsets.UTF_8), snippets,
              paths);
          Files.writeString(to, pom, StandardCharsets.UTF_8);
        } else if (relative.toString().endsWith(".java")) {
          Files.writeString(to, Template.renderSource(file.toString(), Files.readString(file, StandardCharsets.UTF_8),
              snippets), StandardCharsets.UTF_8);
        } else if (!relative.toString().equals(PROCESSOR_PATHS)) {
          Files.copy(file, to);
        }
        return FileVisitResult.CONTINUE;
      }
    });
  }

  private static List<Path> list(Path samples) throws IOException {
    try (Stream<Path> s = Files.list(samples)) {
      return s.filter(p -> Files.isRegularFile(p.resolve("pom.xml"))).sorted().toList();
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
