package io.idempotent.internal;

import static io.idempotent.internal.InMemoryJavac.lineOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.internal.InMemoryJavac.Report;
import io.idempotent.internal.InMemoryJavac.Result;
import java.util.List;
import javax.tools.Diagnostic;
import org.junit.jupiter.api.Test;

/** The compile-time checks of {@code @Idempotent}: each rule, where it is reported and what it says. */
class IdempotentProcessorTest {

  private static final String POST_COMPILE = "-Aidempotent.weaving=post-compile";

  /** {@code methods} inside public class {@code shop.Orders}, with the imports the cases need. */
  private static String orders(String methods) {
    return """
        package shop;

        import io.idempotent.Idempotent;
        import io.idempotent.OnInProgress;
        import java.util.*;
        import java.util.concurrent.*;

        public class Orders {
          public record Customer(String id, Address address) {}
          public record Address(String city) {}
          public static class Card { String number; }
        """ + methods + "\n}\n";
  }

  private static Result check(String source, String... options) {
    return InMemoryJavac.compile("shop.Orders", source, new IdempotentProcessor(), options);
  }

  private static Result checkWoven(String methods) {
    return check(orders(methods), POST_COMPILE);
  }

  /** The line of the annotation just above the method declared on the line of {@code method}. */
  private static long annotationAbove(String source, String method) {
    return lineOf(source, method) - 1;
  }

  /** The only error, asserted to be on the line of {@code at}, containing every one of {@code parts}. */
  private static void assertOneError(Result r, String source, String at, String... parts) {
    assertOneError(r, lineOf(source, at), parts);
  }

  private static void assertOneError(Result r, long line, String... parts) {
    assertThat(r.errors()).as(r.reports().toString()).hasSize(1);
    Report e = r.errors().get(0);
    assertThat(e.line()).as(e.toString()).isEqualTo(line);
    assertThat(e.message()).contains(parts);
    assertThat(r.success()).isFalse();
  }

  @Test
  void discoveredOnTheClassPath_plainJavacIsRefusedWithTheWeavingConfiguration() {
    String source = orders("""
          @Idempotent(key = "#id")
          public String place(String id) { return id; }
        """);
    Result r = InMemoryJavac.compile("shop.Orders", source, null); // no processor named: found by javac

    assertOneError(r, annotationAbove(source, "public String place"), "shop.Orders.place(String) is compiled by javac",
        "would run unprotected", "<artifactId>aspectj-maven-plugin</artifactId>",
        "<artifactId>idempotent-aspect</artifactId>", "<arg>-Aidempotent.weaving=post-compile</arg>",
        "<phase>process-classes</phase>", "<weaveDirectory>${project.build.outputDirectory}</weaveDirectory>",
        "-Aidempotent.weaving=load-time");
  }

  @Test
  void theWeavingErrorShowsTheConfigurationOnce() {
    String source = orders("""
          @Idempotent(key = "#id")
          public String place(String id) { return id; }

          @Idempotent(key = "#id")
          public String cancel(String id) { return id; }
        """);
    Result r = check(source);

    assertThat(r.errors()).hasSize(2);
    assertThat(r.errors().get(0).message()).contains("<aspectLibraries>");
    assertThat(r.errors().get(1).message()).doesNotContain("<aspectLibraries>")
        .contains("shop.Orders.cancel(String)", "configuration in the first such error");
  }

  @Test
  void postCompileWeaving_aGoodMethodCompilesWithoutDiagnostics() {
    Result r = checkWoven("""
          @Idempotent(key = "'order:' + #customer.address.city + #id", scope = "#customer.id", ttl = "PT24H",
              lease = "PT30S", onInProgress = OnInProgress.WAIT, waitTimeout = "PT5S", store = "jdbi",
              payload = {"#id", "#customer"})
          public CompletionStage<Optional<String>> place(String id, Customer customer, java.sql.Connection c) {
            return null;
          }

          @Idempotent(key = "#p0")
          public void settle(String id, long amount) {}
        """);

    assertThat(r.reports()).isEmpty();
    assertThat(r.success()).isTrue();
  }

  @Test
  void anUnknownWeavingOptionIsAnError() {
    Result r = check(orders(""), "-Aidempotent.weaving=later");

    assertThat(r.errors()).singleElement().extracting(Report::message).asString()
        .contains("-Aidempotent.weaving=later is not a weaving step", "post-compile");
  }

  @Test
  void key_anUnknownParameterIsReportedOnTheKeyWithTheParserMessage() {
    String source = orders("""
          @Idempotent(
              key = "#orderId")
          public String place(String id) { return id; }
        """);
    Result r = check(source, POST_COMPILE);

    assertOneError(r, source, "key = \"#orderId\"",
        "Invalid expression in @Idempotent(key) of shop.Orders.place(String): unknown parameter 'orderId';"
            + " parameters are [id] at position 1");
  }

  @Test
  void key_propertyPathsResolveAsAtRunTime() {
    String source = orders("""
          public static class Bean {
            private String code;
            private boolean active;
            public String getCode() { return code; }
            public boolean isActive() { return active; }
            public String label() { return code; }
          }
          public interface Named { String getName(); }
          public static class Base { protected String region; }
          public static class Derived extends Base implements Named { public String getName() { return ""; } }

          @Idempotent(key = "#c.id + #c.address.city + #b.code + #b.active + #b.label + #d.name + #d.region")
          public String ok(Customer c, Bean b, Derived d) { return ""; }

          @Idempotent(
              key = "#b.missing")
          public String missing(Bean b) { return ""; }
        """);
    Result r = check(source, POST_COMPILE);

    assertOneError(r, source, "key = \"#b.missing\"",
        "no property 'missing' on type shop.Orders$Bean (looked for a record component, get/is getter, accessor"
            + " method and field) at position 3");
  }

  @Test
  void key_arraysAndIdentityTextAreRefused() {
    String source = orders("""
          @Idempotent(
              key = "#card")
          public String byCard(Card card) { return ""; }

          @Idempotent(
              key = "'k:' + #codes")
          public String byCodes(int[] codes) { return ""; }
        """);
    Result r = check(source, POST_COMPILE);

    assertThat(r.errors()).hasSize(2);
    assertThat(r.errors().get(0).line()).isEqualTo(lineOf(source, "key = \"#card\""));
    assertThat(r.errors().get(0).message()).contains("#card is a shop.Orders$Card, which does not override toString()",
        "Use a property path to a value, such as #card.id");
    assertThat(r.errors().get(1).line()).isEqualTo(lineOf(source, "key = \"'k:' + #codes\""));
    assertThat(r.errors().get(1).message()).contains("#codes is an array (int[])");
  }

  @Test
  void scope_aSyntaxErrorIsReportedOnTheScope() {
    String source = orders("""
          @Idempotent(key = "#id",
              scope = "#id #id")
          public String place(String id) { return id; }
        """);
    Result r = check(source, POST_COMPILE);

    assertOneError(r, source, "scope = \"#id #id\"",
        "Invalid expression in @Idempotent(scope) of shop.Orders.place(String): expected '+' but found '#'");
  }

  @Test
  void payload_parametersWithoutValueAreRefusedOnTheParameter() {
    String source = orders("""
          @Idempotent(key = "#id")
          public String run(String id,
              Runnable callback,
              java.sql.Connection connection) { return id; }

          @Idempotent(key = "#id", checkPayload = false)
          public String unchecked(String id, Thread worker) { return id; }
        """);
    Result r = check(source, POST_COMPILE);

    // the connection is infrastructure, left out of the payload; checkPayload = false checks nothing
    assertOneError(r, source, "Runnable callback",
        "The payload of shop.Orders.run(String, Runnable, Connection) cannot be fingerprinted: parameter 'callback'"
            + " is refused: java.lang.Runnable is a function type",
        "Name the values that identify a call with @Idempotent(payload = ...) or set checkPayload = false");
  }

  @Test
  void payload_namedValuesAreCheckedWhereTheyAreWritten() {
    String source = orders("""
          @Idempotent(key = "#id", payload = {
              "#id",
              "#worker",
              "#connection",
              "#id.nope"})
          public String run(String id, Thread worker, java.sql.Connection connection) { return id; }
        """);
    Result r = check(source, POST_COMPILE);

    assertThat(r.errors()).as(r.reports().toString()).hasSize(3);
    assertThat(r.errors().get(0).line()).isEqualTo(lineOf(source, "\"#worker\""));
    assertThat(r.errors().get(0).message()).contains("@Idempotent(payload = \"#worker\") is refused: java.lang.Thread"
        + " has no value to compare");
    assertThat(r.errors().get(1).line()).isEqualTo(lineOf(source, "\"#connection\""));
    assertThat(r.errors().get(1).message()).contains("names a java.sql.Connection, infrastructure");
    assertThat(r.errors().get(2).line()).isEqualTo(lineOf(source, "\"#id.nope\""));
    assertThat(r.errors().get(2).message()).contains("no property 'nope' on type java.lang.String");
  }

  @Test
  void payload_aJdkClassWithoutValueRuleIsRefused() {
    String source = orders("""
          @Idempotent(key = "#id")
          public String run(String id,
              java.util.concurrent.atomic.AtomicReference<String> ref) { return id; }
        """);
    Result r = check(source, POST_COMPILE);

    assertOneError(r, source, "java.util.concurrent.atomic.AtomicReference<String> ref",
        "java.util.concurrent.atomic.AtomicReference is a JDK type the fingerprint has no value rule for");
  }

  @Test
  void durations_badTextAndBoundsAreErrorsOnTheirAttribute() {
    String source = orders("""
          @Idempotent(key = "#id",
              ttl = "PT24",
              lease = "PT0.005S",
              onInProgress = OnInProgress.WAIT,
              waitTimeout = "P2D",
              maxRunTime = "P10000D")
          public String place(String id) { return id; }
        """);
    Result r = check(source, POST_COMPILE);

    assertThat(r.errors()).as(r.reports().toString()).hasSize(4);
    assertThat(r.errors().get(0).line()).isEqualTo(lineOf(source, "ttl = \"PT24\""));
    assertThat(r.errors().get(0).message()).isEqualTo(
        "@Idempotent(ttl) of shop.Orders.place(String) is 'PT24'; expected an ISO-8601 duration such as PT30S or PT24H");
    assertThat(r.errors().get(1).line()).isEqualTo(lineOf(source, "lease = \"PT0.005S\""));
    assertThat(r.errors().get(1).message()).startsWith(
        "The lease of shop.Orders.place(String) is PT0.005S; it must be between PT1S and PT24H");
    assertThat(r.errors().get(2).line()).isEqualTo(lineOf(source, "waitTimeout = \"P2D\""));
    assertThat(r.errors().get(2).message()).contains("The waitTimeout of shop.Orders.place(String) is PT48H");
    assertThat(r.errors().get(3).line()).isEqualTo(lineOf(source, "maxRunTime = \"P10000D\""));
    assertThat(r.errors().get(3).message()).contains("The maxRunTime of shop.Orders.place(String)");
  }

  @Test
  void durations_aLeaseLongerThanTheTtlAndAnIdleWaitTimeoutAreWarnings() {
    String source = orders("""
          @Idempotent(key = "#id", ttl = "PT1M",
              lease = "PT10M",
              waitTimeout = "PT5S")
          public String place(String id) { return id; }
        """);
    Result r = check(source, POST_COMPILE);

    assertThat(r.errors()).isEmpty();
    List<Report> warnings = r.of(Diagnostic.Kind.WARNING);
    assertThat(warnings).hasSize(2);
    assertThat(warnings.get(0).line()).isEqualTo(lineOf(source, "lease = \"PT10M\""));
    assertThat(warnings.get(0).message()).contains("(PT10M) is longer than its ttl (PT1M)",
        "Make the lease at most the ttl");
    assertThat(warnings.get(1).line()).isEqualTo(lineOf(source, "waitTimeout = \"PT5S\""));
    assertThat(warnings.get(1).message()).contains("has no effect with onInProgress = THROW",
        "set onInProgress = OnInProgress.WAIT");
  }

  @Test
  void result_resourcesCannotBeRecorded() {
    String source = orders("""
          @Idempotent(key = "#id")
          public java.io.InputStream open(String id) { return null; }

          @Idempotent(key = "#id")
          public java.util.stream.Stream<String> lines(String id) { return null; }

          @Idempotent(key = "#id")
          public CompletableFuture<Iterator<String>> later(String id) { return null; }

          @Idempotent(key = "#id")
          public Optional<java.sql.Connection> connect(String id) { return null; }

          @Idempotent(key = "#id")
          public CompletionStage<Optional<String>> fine(String id) { return null; }
        """);
    Result r = check(source, POST_COMPILE);

    assertThat(r.errors()).as(r.reports().toString()).hasSize(4);
    assertThat(r.errors().get(0).line()).isEqualTo(annotationAbove(source, "public java.io.InputStream open"));
    assertThat(r.errors().get(0).message()).isEqualTo("shop.Orders.open(String) returns java.io.InputStream, which"
        + " cannot be recorded and replayed: java.io.InputStream has no value to compare. Return the value that"
        + " describes the outcome (a record, an id, a String) instead");
    assertThat(r.errors().get(1).message()).contains("returns java.util.stream.Stream<java.lang.String>",
        "(a java.util.stream.BaseStream)");
    assertThat(r.errors().get(2).message()).contains("returns java.util.Iterator<java.lang.String>");
    assertThat(r.errors().get(3).message()).contains("infrastructure (java.sql.Connection)");
  }

  @Test
  void result_skipOnAPrimitiveAndAnUnsupportedStage() {
    String source = orders("""
          public static class MyStage<T> extends CompletableFuture<T> {}

          @Idempotent(key = "#id",
              onInProgress = OnInProgress.SKIP)
          public int count(String id) { return 0; }

          @Idempotent(key = "#id")
          public MyStage<String> custom(String id) { return null; }
        """);
    Result r = check(source, POST_COMPILE);

    assertThat(r.errors()).as(r.reports().toString()).hasSize(2);
    assertThat(r.errors().get(0).line()).isEqualTo(lineOf(source, "onInProgress = OnInProgress.SKIP"));
    assertThat(r.errors().get(0).message()).isEqualTo("shop.Orders.count(String) uses onInProgress = SKIP but returns"
        + " a primitive; SKIP needs a void, Optional or nullable result");
    assertThat(r.errors().get(1).line()).isEqualTo(annotationAbove(source, "public MyStage<String> custom"));
    assertThat(r.errors().get(1).message()).contains("returns shop.Orders$MyStage; asynchronous idempotent methods"
        + " must return CompletionStage or CompletableFuture");
  }

  @Test
  void store_aNameThatIsNoStoreNameIsAnError() {
    String source = orders("""
          @Idempotent(key = "#id",
              store = "my store")
          public String place(String id) { return id; }
        """);
    Result r = check(source, POST_COMPILE);

    assertOneError(r, source, "store = \"my store\"", "@Idempotent(store) of shop.Orders.place(String):"
        + " \"my store\" is not a store name: write letters, digits, '_', '.' and '-' only");
  }

  @Test
  void abstractMethodsAreNeverWoven() {
    String source = orders("""
          public interface Api {
            @Idempotent(key = "#id")
            String place(String id);
          }
        """);
    Result r = check(source, POST_COMPILE);

    assertOneError(r, annotationAbove(source, "String place(String id);"), "shop.Orders$Api.place(String) is abstract",
        "annotate the implementing method instead");
  }
}
