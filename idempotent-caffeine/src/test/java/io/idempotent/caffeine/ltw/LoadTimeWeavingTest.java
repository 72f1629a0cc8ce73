package io.idempotent.caffeine.ltw;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load-time weaving, the option that changes no build: {@code shop.LoadTimeOrders} (src/test/javac-only) is
 * compiled here by plain javac with Lombok and idempotent-aspect's processor, then run in a JVM of its own
 * under {@code -javaagent:aspectjweaver.jar}, which weaves it with the aspect idempotent-aspect declares in
 * its META-INF/aop.xml. {@link LtwChild} drives it and prints what happened; the assertions read that.
 *
 * <p>The jars come from the build (maven-dependency-plugin copies them; Surefire passes their paths):
 * {@code idempotent.ltw.weaver}, {@code idempotent.ltw.lombok}. With {@code -Didempotent.ltw.runs=10} a
 * further test measures start-up, with and without the agent, and prints the figures of docs/BUILDS.md.
 */
class LoadTimeWeavingTest {

  private static final String CHILD = LtwChild.class.getName();
  private static final String JAVAC_CLASS = "shop.LoadTimeOrders";
  private static final String AJC_CLASS = CompileTimeWovenOrders.class.getName();

  @TempDir
  static Path dir;

  private static Path classes;

  @BeforeAll
  static void compileWithPlainJavac() throws Exception {
    classes = dir.resolve("classes");
    Result javac = javac(classes, "-Aidempotent.weaving=load-time");
    assertThat(javac.exitCode).as(javac.output).isZero();
    assertThat(classes.resolve("shop/LoadTimeOrders.class")).exists();
  }

  @Test
  void plainJavac_withoutTheWeavingOption_refusesTheIdempotentMethods() throws Exception {
    Result javac = javac(dir.resolve("refused"));

    assertThat(javac.exitCode).as(javac.output).isNotZero();
    assertThat(javac.output).contains("shop.LoadTimeOrders.charge(String, long) is compiled by javac,"
        + " which does not weave the idempotency aspect", "-Aidempotent.weaving=load-time");
  }

  @Test
  void underTheAgent_aClassPlainJavacCompiled_isProtected() throws Exception {
    Map<String, String> run = run(true, JAVAC_CLASS);

    assertThat(run).as("a retry replays: the method ran once")
        .containsEntry("charges", "1").containsEntry("replayOutcome", "REPLAYED");
    assertThat(run).as("the Lombok value read back equals the one returned")
        .containsEntry("equalAfterReplay", "true").containsEntry("resultClass", "shop.LoadTimeOrders$Receipt");
    assertThat(run).as("a private method called from its own class is protected too")
        .containsEntry("refunds", "1").containsEntry("refundResult", "refund-order-2-1");
    assertThat(run).as("a key reused with another payload is refused")
        .containsEntry("reusedKey", "refused").containsEntry("chargesAfterReuse", "1");
    assertThat(run).as("one event per call").containsEntry("events", "{EXECUTED=2, KEY_REUSED=1, REPLAYED=2}");
    assertThat(run).as("Idempotency.validate sees the class woven").containsEntry("validate", "ok");
  }

  @Test
  void withoutTheAgent_theSameClassRunsUnprotected_andValidateSaysSo() throws Exception {
    Map<String, String> run = run(false, JAVAC_CLASS);

    assertThat(run).containsEntry("charges", "2").containsEntry("refunds", "2").containsEntry("reusedKey", "ran")
        .containsEntry("events", "{}");
    assertThat(run.get("validate")).contains("shop.LoadTimeOrders.charge(String, long) is annotated with"
        + " @Idempotent but was not woven", "-javaagent:aspectjweaver.jar");
  }

  @Test
  void underTheAgent_aClassAjcAlreadyWove_isAdvisedOnce() throws Exception {
    Map<String, String> run = run(true, AJC_CLASS);

    assertThat(run).containsEntry("charges", "1").containsEntry("refunds", "1")
        .containsEntry("reusedKey", "refused").containsEntry("chargesAfterReuse", "1")
        .containsEntry("validate", "ok");
    assertThat(run).as("an aspect applied twice would report two events per call, or refuse its own nested call")
        .containsEntry("events", "{EXECUTED=2, KEY_REUSED=1, REPLAYED=2}");
  }

  /**
   * The start-up cost: wall time from starting the JVM to the end of its first protected call (the child
   * stops there), and the time of that first call, for each variant; median, minimum and maximum.
   */
  @Test
  @EnabledIfSystemProperty(named = "idempotent.ltw.runs", matches = "\\d+")
  void startUpCost() throws Exception {
    int runs = Integer.parseInt(System.getProperty("idempotent.ltw.runs"));
    record Variant(String label, boolean agent, String className) {}
    List<Variant> variants = List.of(
        new Variant("javac, no agent (unprotected)", false, JAVAC_CLASS),
        new Variant("ajc at build time, no agent", false, AJC_CLASS),
        new Variant("javac + agent", true, JAVAC_CLASS),
        new Variant("ajc at build time + agent", true, AJC_CLASS));
    StringBuilder table = new StringBuilder("\nvariant | JVM start to first call done, ms (median, min-max)"
        + " | first call, ms (median, min-max)\n");
    for (Variant v : variants) {
      run(v.agent, v.className, "first-call"); // warms the file system cache
      long[] wall = new long[runs];
      long[] first = new long[runs];
      for (int i = 0; i < runs; i++) {
        long start = System.nanoTime();
        Process p = start(v.agent, v.className, "first-call");
        String line;
        try (BufferedReader out = reader(p)) {
          while ((line = out.readLine()) != null && !line.startsWith("firstCallMicros=")) {
            // the agent's lines, if any
          }
        }
        wall[i] = (System.nanoTime() - start) / 1_000_000;
        assertThat(line).as("the child's first call").isNotNull();
        first[i] = Long.parseLong(line.substring(line.indexOf('=') + 1));
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      }
      table.append(v.label).append(" | ").append(summary(wall, 1)).append(" | ").append(summary(first, 1000))
          .append('\n');
    }
    System.out.println(table);
  }

  private static String summary(long[] values, double divisor) {
    long[] sorted = values.clone();
    Arrays.sort(sorted);
    double median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
        : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2.0;
    return String.format("%.1f (%.1f-%.1f)", median / divisor, sorted[0] / divisor,
        sorted[sorted.length - 1] / divisor);
  }

  private record Result(int exitCode, String output) {}

  /** javac as a user runs it: Lombok and idempotent-aspect on the processor path, -parameters, no -g. */
  private static Result javac(Path out, String... options) throws Exception {
    Files.createDirectories(out);
    Path sources = Path.of(property("idempotent.ltw.sources"));
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "javac").toString(),
        "--release", "17", "-parameters", "-d", out.toString(),
        // Lombok as an application has it: its annotations on the class path, its processor on the processor path
        "-classpath", property("idempotent.ltw.lombok") + File.pathSeparator + testClassPath(),
        "-processorpath", property("idempotent.ltw.lombok") + File.pathSeparator + testClassPath()));
    command.addAll(List.of(options));
    try (Stream<Path> files = Files.walk(sources)) {
      files.filter(f -> f.toString().endsWith(".java")).forEach(f -> command.add(f.toString()));
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    return new Result(p.exitValue(), output);
  }

  private static Map<String, String> run(boolean agent, String className, String... args) throws Exception {
    Process p = start(agent, className, args);
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = reader(p)) {
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
      }
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String output = String.join("\n", lines);
    System.out.println("[" + className + (agent ? ", agent" : ", no agent") + "]\n" + output);
    assertThat(p.exitValue()).as(output).isZero();
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : lines) {
      int eq = line.indexOf('=');
      if (eq > 0 && line.substring(0, eq).chars().allMatch(Character::isLetter)) {
        values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return values;
  }

  private static Process start(boolean agent, String className, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (agent) {
      command.add("-javaagent:" + property("idempotent.ltw.weaver"));
    }
    command.addAll(List.of("-cp", classes + File.pathSeparator + testClassPath(), CHILD, className));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static BufferedReader reader(Process p) {
    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
  }

  private static String testClassPath() {
    return System.getProperty("java.class.path");
  }

  private static String property(String name) {
    String value = System.getProperty(name);
    assertThat(value).as("system property " + name + ", which the module's Surefire configuration sets").isNotBlank();
    return value;
  }
}
