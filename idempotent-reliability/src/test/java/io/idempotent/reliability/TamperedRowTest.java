package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.idempotent.IdempotencyResultException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.internal.StoredKeys;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.reliability.TamperTargets.Declined;
import io.idempotent.reliability.TamperTargets.Receipt;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Completed rows rewritten in the table behind the library's back: results naming another class or
 * carrying a gadget payload (also where the declared type is Object, whose stored tags come from a closed
 * list), results of another shape, failure types that are not declared final
 * exceptions, unknown outcome kinds. A replay never instantiates anything but the declared type (the
 * gadget classes are never even initialised); a row that cannot be read as that type fails with a
 * library exception, and the method never runs a second time.
 */
class TamperedRowTest {

  /** What a replay of the tampered row must give. */
  enum Expect {
    /** An instance of the declared result type (JSON that still fits its shape). */
    DECLARED_TYPE,
    /** Data of the closed list a slot declared Object keeps (here a map): the declared type is Object. */
    PLAIN_DATA,
    /** {@link IdempotencyResultException}. */
    RESULT_EXCEPTION,
    /** {@link IdempotencyStoreException}: the row itself is not a record the store can read. */
    STORE_EXCEPTION
  }

  record Tamper(String label, String method, String column, String value, Expect expect) {
    @Override
    public String toString() {
      return label;
    }
  }

  private static final String GADGET = Gadget.class.getName();
  private static final String GADGET_EXCEPTION = GadgetException.class.getName();

  static final List<Tamper> TAMPERS = List.of(
      new Tamper("class name and gadget property in a record's JSON", TamperTargets.RECEIPT, "result_json",
          "{\"@class\":\"" + GADGET + "\",\"command\":\"touch /tmp/pwned\"}", Expect.DECLARED_TYPE),
      new Tamper("default-typing array naming a gadget", TamperTargets.RECEIPT, "result_json",
          "[\"" + GADGET + "\",{\"command\":\"touch /tmp/pwned\"}]", Expect.RESULT_EXCEPTION),
      new Tamper("typed object where a string is declared", TamperTargets.RECEIPT, "result_json",
          "{\"id\":{\"@class\":\"" + GADGET + "\",\"command\":\"x\"},\"cents\":1}", Expect.RESULT_EXCEPTION),
      new Tamper("java.net.URL in a record's JSON", TamperTargets.RECEIPT, "result_json",
          "[\"java.net.URL\",\"http://127.0.0.1:9/\"]", Expect.RESULT_EXCEPTION),
      new Tamper("Java serialization stream as text", TamperTargets.RECEIPT, "result_json",
          "\"rO0ABXNyABFqYXZhLnV0aWwuSGFzaE1hcAUH2sHDFmDRAwACRgAKbG9hZEZhY3Rvcg==\"", Expect.RESULT_EXCEPTION),
      new Tamper("wrong shape: number for a record", TamperTargets.RECEIPT, "result_json", "42",
          Expect.RESULT_EXCEPTION),
      new Tamper("not JSON", TamperTargets.RECEIPT, "result_json", "<gadget/>", Expect.RESULT_EXCEPTION),
      new Tamper("gadget array where Object is declared", TamperTargets.ANYTHING, "result_json",
          "[\"" + GADGET + "\",{\"command\":\"touch /tmp/pwned\"}]", Expect.RESULT_EXCEPTION),
      new Tamper("class name where Object is declared", TamperTargets.ANYTHING, "result_json",
          "{\"@class\":\"" + GADGET + "\",\"command\":\"x\"}", Expect.RESULT_EXCEPTION),
      new Tamper("gadget inside a tagged map where Object is declared", TamperTargets.ANYTHING, "result_json",
          "[\"HashMap\",{\"id\":[\"" + GADGET + "\",{\"command\":\"x\"}]}]", Expect.RESULT_EXCEPTION),
      new Tamper("other data of a tag on the closed list where Object is declared", TamperTargets.ANYTHING,
          "result_json", "[\"Map.of\",{\"id\":[\"Long\",7]}]", Expect.PLAIN_DATA),
      new Tamper("failure type: a throwable gadget", TamperTargets.DECLINE, "failure_type", GADGET_EXCEPTION,
          Expect.RESULT_EXCEPTION),
      new Tamper("failure type: a non-throwable gadget", TamperTargets.DECLINE, "failure_type", GADGET,
          Expect.RESULT_EXCEPTION),
      new Tamper("failure type: java.lang.ProcessBuilder", TamperTargets.DECLINE, "failure_type",
          "java.lang.ProcessBuilder", Expect.RESULT_EXCEPTION),
      new Tamper("failure type: an undeclared JDK exception", TamperTargets.DECLINE, "failure_type",
          "java.lang.IllegalStateException", Expect.RESULT_EXCEPTION),
      new Tamper("failure type: no such class", TamperTargets.DECLINE, "failure_type", "no.such.Gadget",
          Expect.RESULT_EXCEPTION),
      new Tamper("unknown outcome kind", TamperTargets.RECEIPT, "outcome_kind", "GADGET", Expect.STORE_EXCEPTION),
      new Tamper("unknown state", TamperTargets.RECEIPT, "state", "GADGET", Expect.STORE_EXCEPTION));

  static Stream<Arguments> cases() {
    return StoreKind.tables().flatMap(kind -> TAMPERS.stream().map(t -> Arguments.of(kind, t)));
  }

  /** One pool per store kind for the whole class: opening pools would dominate the run time. */
  private static final Map<StoreKind, StoreKind.Opened> OPENED = new ConcurrentHashMap<>();
  private static final Map<StoreKind, Integer> TALLY = new ConcurrentHashMap<>();
  /** Per store kind: runs beyond the first of a key, and keys whose row was gone after the replays. */
  private static final Map<StoreKind, Integer> DUPLICATED = new ConcurrentHashMap<>();
  private static final Map<StoreKind, Integer> LOST = new ConcurrentHashMap<>();

  private final TamperTargets targets = new TamperTargets();

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  /** A new instance of the store (nothing cached in memory) installed for the woven methods. */
  private static Jdbi newInstance(StoreKind kind) {
    StoreKind.Opened opened = OPENED.computeIfAbsent(kind, StoreKind::open);
    Idempotency.install(IdempotencyConfig.builder()
        .store(kind.storeOn(opened.jdbi(), TransactionMode.INDEPENDENT))
        .build());
    return opened.jdbi();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("cases")
  void tamperedRow_neverInstantiatesAnotherType_failsClearly_andRunsNothingTwice(StoreKind kind, Tamper tamper) {
    Jdbi jdbi = newInstance(kind);
    String run = Calls.newRun();
    String id = "order-1";
    Supplier<Object> call = switch (tamper.method()) {
      case TamperTargets.RECEIPT -> () -> targets.receipt(run, id);
      case TamperTargets.ANYTHING -> () -> targets.anything(run, id);
      default -> () -> targets.decline(run, id);
    };
    Throwable first = catchThrowable(call::get);
    if (tamper.method().equals(TamperTargets.DECLINE)) {
      assertThat(first).isInstanceOf(Declined.class);
    } else {
      assertThat(first).isNull();
    }
    assertThat(targets.runs).hasValue(1);

    String storedKey = StoredKeys.compose(tamper.method(), run, id, JdbiIdempotencyStore.KEY_RULES);
    int updated = jdbi.withHandle(h -> h.createUpdate(
            "UPDATE " + Database.TABLE + " SET " + tamper.column() + " = :value WHERE idempotency_key = :key")
        .bind("value", tamper.value())
        .bind("key", storedKey)
        .execute());
    assertThat(updated).as("the completed row was found and rewritten").isEqualTo(1);

    newInstance(kind); // another application instance reads the row
    int gadgetsBefore = GadgetCounters.total();
    for (int attempt = 0; attempt < 2; attempt++) {
      Object[] result = new Object[1];
      Throwable thrown = catchThrowable(() -> result[0] = call.get());
      switch (tamper.expect()) {
        case DECLARED_TYPE -> assertThat(result[0]).isExactlyInstanceOf(Receipt.class);
        case PLAIN_DATA -> assertThat(result[0]).isInstanceOfAny(Map.class, List.class);
        case RESULT_EXCEPTION -> assertThat(thrown).isInstanceOf(IdempotencyResultException.class).satisfiesAnyOf(
                t -> assertThat(t.getMessage()).contains("Cannot decode a stored result"),
                t -> assertThat(t.getMessage()).contains("not one of its declared final exceptions"));
        case STORE_EXCEPTION -> assertThat(thrown).isInstanceOf(IdempotencyStoreException.class)
            .hasMessageContaining("did not run");
      }
      if (tamper.expect() == Expect.DECLARED_TYPE || tamper.expect() == Expect.PLAIN_DATA) {
        assertThat(thrown).isNull();
      }
    }
    // counted before asserting, so that the figures line shows what happened
    int duplicated = targets.runs.get() - 1;
    int lost = jdbi.withHandle(h -> h.createQuery(
            "SELECT COUNT(*) FROM " + Database.TABLE + " WHERE idempotency_key = :key")
        .bind("key", storedKey).mapTo(Integer.class).one()) == 1 ? 0 : 1;
    TALLY.merge(kind, 1, Integer::sum);
    DUPLICATED.merge(kind, duplicated, Integer::sum);
    LOST.merge(kind, lost, Integer::sum);
    assertThat(duplicated).as("the method never ran again").isZero();
    assertThat(lost).as("the row is still there").isZero();
    assertThat(GadgetCounters.total()).as("no gadget was initialised or constructed").isEqualTo(gadgetsBefore).isZero();
  }

  @AfterAll
  static void report() {
    OPENED.values().forEach(StoreKind.Opened::close);
    TALLY.forEach((kind, n) -> Figures.of("TamperedRowTest[" + kind + "]")
        .set("keys", n)
        .set("duplicatesSent", 2L * n)
        .set("executions", n + DUPLICATED.getOrDefault(kind, 0))
        .set("badInputs", n)
        .set("lost", LOST.getOrDefault(kind, 0))
        .set("duplicated", DUPLICATED.getOrDefault(kind, 0))
        .report());
  }
}
