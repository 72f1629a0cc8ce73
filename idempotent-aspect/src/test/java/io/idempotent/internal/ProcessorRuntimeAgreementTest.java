package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.internal.InMemoryJavac.Report;
import io.idempotent.internal.InMemoryJavac.Result;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.aspectj.bridge.IMessage;
import org.aspectj.bridge.MessageHandler;
import org.junit.jupiter.api.Test;

/**
 * The compile-time check and the runtime agree: one table of annotated methods, compiled with the
 * processor (by javac, and by ajc) and without it, then compiled by {@link MethodPlan} from the loaded
 * classes. Each method has at most one problem, so both sides must report the same message, or both none.
 */
class ProcessorRuntimeAgreementTest {

  /** One method per line: diagnostics are matched to methods by line. */
  private static final String[] CASES = {
    "@Idempotent(key = \"#id\") public String %s(String id)",
    "@Idempotent(key = \"#a0\") public String %s(String id)",
    "@Idempotent(key = \"#ghost\") public String %s(String id)",
    "@Idempotent(key = \"#p1\") public String %s(String id)",
    "@Idempotent(key = \"'x' + \") public String %s(String id)",
    "@Idempotent(key = \"#c.address.city\") public String %s(Customer c)",
    "@Idempotent(key = \"#c.address.zip\") public String %s(Customer c)",
    "@Idempotent(key = \"#b.code\") public String %s(Bean b)",
    "@Idempotent(key = \"#b.active\") public String %s(Bean b)",
    "@Idempotent(key = \"#b.label\") public String %s(Bean b)",
    "@Idempotent(key = \"#b.secret\") public String %s(Bean b)",
    "@Idempotent(key = \"#b.flag\") public String %s(Bean b)",
    "@Idempotent(key = \"#b\") public String %s(Bean b)",
    "@Idempotent(key = \"#b.self\") public String %s(Bean b)",
    "@Idempotent(key = \"#n.name\") public String %s(Named n)",
    "@Idempotent(key = \"#d.name + #d.region + #d.plain\") public String %s(Derived d)",
    "@Idempotent(key = \"#o\") public String %s(Object o)",
    "@Idempotent(key = \"#codes\") public String %s(int[] codes)",
    "@Idempotent(key = \"#box.value\") public String %s(Box<String> box)",
    "@Idempotent(key = \"#r.count\") public String %s(Counted r)",
    "@Idempotent(key = \"#r.count.x\") public String %s(Counted r)",
    "@Idempotent(key = \"#e\") public String %s(java.time.DayOfWeek e)",
    "@Idempotent(key = \"#id\", scope = \"#id.length\") public String %s(String id)",
    "@Idempotent(key = \"#id\", scope = \"#s\") public String %s(String id, StringBuilder s)",
    "@Idempotent(key = \"#id\") public String %s(String id, Thread t)",
    "@Idempotent(key = \"#id\") public String %s(String id, java.sql.Connection c)",
    "@Idempotent(key = \"#id\", payload = \"#c\") public String %s(String id, java.sql.Connection c)",
    "@Idempotent(key = \"#id\", payload = \"#b.code\") public String %s(String id, Bean b, Runnable r)",
    "@Idempotent(key = \"#id\") public String %s(String id, java.util.function.Supplier<String> s)",
    "@Idempotent(key = \"#id\") public String %s(String id, java.util.concurrent.atomic.AtomicReference<String> r)",
    "@Idempotent(key = \"#id\") public String %s(String id, java.util.List<Bean> l, Object o, Customer c)",
    "@Idempotent(key = \"#id\") public String %s(String id, java.util.concurrent.locks.ReentrantLock l)",
    "@Idempotent(key = \"#id\", checkPayload = false) public String %s(String id, Thread t)",
    "@Idempotent(key = \"#id\", ttl = \"PT1\") public String %s(String id)",
    "@Idempotent(key = \"#id\", lease = \"PT0.01S\") public String %s(String id)",
    "@Idempotent(key = \"#id\", ttl = \"PT1H\", lease = \"PT30S\") public String %s(String id)",
    "@Idempotent(key = \"#id\", store = \"a b\") public String %s(String id)",
    "@Idempotent(key = \"#id\", store = \"redis-eu.1\") public String %s(String id)",
    "@Idempotent(key = \"#id\") public java.io.Reader %s(String id)",
    "@Idempotent(key = \"#id\") public java.util.Optional<Thread> %s(String id)",
    "@Idempotent(key = \"#id\") public java.util.concurrent.CompletableFuture<Customer> %s(String id)",
    "@Idempotent(key = \"#id\", onInProgress = OnInProgress.SKIP) public long %s(String id)",
  };

  private static final String TYPES = """
        public record Customer(String id, Address address) {}
        public record Address(String city) {}
        public record Box<T>(T value) {}
        public record Counted(int count) {}
        public interface Named { String getName(); }
        public static class Base { protected String region; }
        public static class Derived extends Base implements Named {
          String plain;
          public String getName() { return ""; }
        }
        public static class Bean {
          private String code;
          private boolean active;
          private String secret;
          public String getCode() { return code; }
          public boolean isActive() { return active; }
          public String label() { return code; }
          public String isFlag() { return ""; }
          public Bean self() { return this; }
        }
      """;

  /** The table's source, and which method each line declares. */
  private static final Map<Long, String> METHOD_AT_LINE = new TreeMap<>();
  private static final String SOURCE = table();

  private static String table() {
    StringBuilder source = new StringBuilder("""
        package agree;

        import io.idempotent.Idempotent;
        import io.idempotent.OnInProgress;

        public class Table {
        """).append(TYPES);
    for (int i = 0; i < CASES.length; i++) {
      String name = "m" + i;
      METHOD_AT_LINE.put(source.chars().filter(c -> c == '\n').count() + 1, name);
      String body = CASES[i].contains(" long ") ? "{ return 0; }" : "{ return null; }";
      source.append("  ").append(String.format(CASES[i], name)).append(' ').append(body).append('\n');
    }
    return source.append("}\n").toString();
  }

  @Test
  void javacAndTheRuntimeReportTheSameProblems() throws Exception {
    Result checked = InMemoryJavac.compile("agree.Table", SOURCE, new IdempotentProcessor(),
        "-Aidempotent.weaving=post-compile");
    Map<String, List<String>> atCompileTime = new TreeMap<>();
    for (Report r : checked.errors()) {
      add(atCompileTime, r.line(), r.message());
    }

    Map<String, List<String>> atRunTime = atRunTime();
    assertThat(atCompileTime).isEqualTo(atRunTime);
    // the table exercises both verdicts
    assertThat(atRunTime).hasSizeBetween(CASES.length / 3, CASES.length - CASES.length / 3);
  }

  /** ajc finds the processor on the class path as aspectj-maven-plugin runs it, and needs no option. */
  @Test
  void ajcAndTheRuntimeReportTheSameProblems() throws Exception {
    Path dir = Files.createTempDirectory("idempotent-ajc");
    Path file = dir.resolve("src/agree/Table.java");
    Files.createDirectories(file.getParent());
    Files.writeString(file, SOURCE);
    MessageHandler messages = new MessageHandler();
    new org.aspectj.tools.ajc.Main().run(new String[] {
      "-17", "-parameters", "-Xlint:ignore", "-classpath", InMemoryJavac.classPath(),
      "-d", dir.resolve("classes").toString(), file.toString()
    }, messages);

    Map<String, List<String>> atCompileTime = new TreeMap<>();
    for (IMessage m : messages.getMessages(IMessage.ERROR, true)) {
      add(atCompileTime, m.getSourceLocation() == null ? -1 : m.getSourceLocation().getLine(), m.getMessage());
    }
    assertThat(atCompileTime).isEqualTo(atRunTime());
  }

  private static void add(Map<String, List<String>> byMethod, long line, String message) {
    byMethod.computeIfAbsent(METHOD_AT_LINE.getOrDefault(line, "line " + line), k -> new ArrayList<>())
        .add(lines(message));
  }

  /** The table compiled without the processor, each method's annotation compiled by MethodPlan. */
  private Map<String, List<String>> atRunTime() throws Exception {
    Result plain = InMemoryJavac.compile("agree.Table", SOURCE, null, "-proc:none");
    assertThat(plain.reports()).isEmpty();
    Map<String, List<String>> atRunTime = new TreeMap<>();
    try (URLClassLoader loader = new URLClassLoader(
        new URL[] {plain.classes().toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> table = loader.loadClass("agree.Table");
      for (Method m : table.getDeclaredMethods()) {
        try {
          MethodPlan.compile(m, null).call().checkResultType(JacksonResultCodec.shared());
        } catch (IdempotencyConfigurationException e) {
          atRunTime.put(m.getName(), List.of(lines(e.getMessage())));
        }
      }
    }
    return atRunTime;
  }

  /** The message without the indentation javac gives the continuation lines of a diagnostic. */
  private static String lines(String message) {
    return message.replaceAll("\n\\s+", "\n");
  }
}
