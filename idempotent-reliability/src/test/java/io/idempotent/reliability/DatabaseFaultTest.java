package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.idempotent.CallResult;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PostgreSQL behind a {@link FaultProxy}: the store unreachable before the claim, the connection cut
 * after the method ran but before its completion, a connection dropped in the middle of the completing
 * statement. Nothing runs without a claim; a lost completion is reported and, after recovery and the
 * lease, runs again (at least once for effects outside the database); in joined mode the database
 * effect exists exactly once.
 */
class DatabaseFaultTest {

  private static final String NAME = "faults.charge";
  private static final Ledger LEDGER = new Ledger("rel_ledger");

  private static UnaryOperator<IdempotencyStore> layering(String store) {
    return store.equals("layered") ? far -> new LayeredIdempotencyStore(new CaffeineIdempotencyStore(), far)
        : UnaryOperator.identity();
  }

  @ParameterizedTest
  @ValueSource(strings = {"jdbi", "layered"})
  void storeUnreachableBeforeTheClaim_theMethodDoesNotRun_andCallersGetStoreException(String store) throws Exception {
    try (FaultProxy proxy = ProxiedPostgres.proxy();
         AppInstance app = AppInstance.on(ProxiedPostgres.pool(proxy, 4, "unreachable"), TransactionMode.INDEPENDENT,
             Duration.ofSeconds(5), true, layering(store))) {
      String run = Calls.newRun();
      AtomicInteger runs = new AtomicInteger();
      String warm = run + ":warm";
      assertThat(app.idempotency.call(NAME, String.class).key(warm).run(() -> "v" + runs.incrementAndGet()))
          .isEqualTo("v1");

      proxy.refuseNew();
      proxy.cutAll();
      int keys = 3;
      for (int i = 0; i < keys; i++) {
        String key = run + ":" + i;
        assertThatThrownBy(() -> app.idempotency.call(NAME, String.class).key(key).run(() -> "v" + runs.incrementAndGet()))
            .isInstanceOf(IdempotencyStoreException.class)
            .hasMessageContaining("did not run");
      }
      assertThat(runs).as("nothing ran without a claim").hasValue(1);
      assertThat(app.events.count(Type.STORE_ERROR)).isGreaterThanOrEqualTo(keys);
      if (store.equals("layered")) {
        // a committed outcome already cached near is still replayed: it needs no decision
        assertThat(app.idempotency.call(NAME, String.class).key(warm).execute(() -> "no").value()).isEqualTo("v1");
      }

      proxy.pass();
      for (int i = 0; i < keys; i++) {
        String key = run + ":" + i;
        CallResult<String> r = awaitRecovery(() -> app.idempotency.call(NAME, String.class).key(key)
            .execute(() -> "v" + runs.incrementAndGet()));
        assertThat(r.replayed()).isFalse();
      }
      assertThat(runs).as("after recovery each key ran once").hasValue(1 + keys);
      int duplicated = runs.get() - (keys + 1);
      int lost = 0; // a key whose result is not replayed from its record
      for (int i = -1; i < keys; i++) {
        String key = i < 0 ? warm : run + ":" + i;
        if (!app.idempotency.call(NAME, String.class).key(key).execute(() -> "lost").replayed()) {
          lost++;
        }
      }
      Figures.of("DatabaseFaultTest.unreachableBeforeClaim[" + store + "]")
          .set("threads", 1).set("keys", keys + 1).set("duplicatesSent", keys)
          .set("executions", runs.get()).set("faults", proxy.faults()).set("lost", lost).set("duplicated", duplicated)
          .report();
      assertThat(lost).as("lost").isZero();
      assertThat(duplicated).as("duplicated").isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"jdbi", "layered"})
  void connectionCutAfterTheMethodRan_isReported_andTheOutcomeIsRecordedOnceTheStoreIsBack(String store)
      throws Exception {
    Duration lease = Duration.ofSeconds(3);
    try (FaultProxy proxy = ProxiedPostgres.proxy();
         AppInstance app = AppInstance.on(ProxiedPostgres.pool(proxy, 4, "cut-after"), TransactionMode.INDEPENDENT,
             lease, true, layering(store))) {
      String key = Calls.newRun();
      AtomicInteger charges = new AtomicInteger(); // an effect outside the database: a card charged
      String first = app.idempotency.call(NAME, String.class).key(key).run(() -> {
        charges.incrementAndGet();
        proxy.refuseNew();
        proxy.cutAll(); // the method ran; now its completion cannot be written
        return "charged-" + charges.get();
      });
      assertThat(first).as("the caller still gets the result of the run").isEqualTo("charged-1");
      assertThat(app.events.count(Type.STORE_ERROR)).as("the lost completion is reported").isPositive();
      assertThat(app.events.count(Type.EXECUTED)).isZero();

      proxy.pass(); // back within the lease: the outcome, tried again in the background, lands
      CallResult<String> retried = null;
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      do { // in progress until the outcome lands, a store error while the pool replaces its cut connections
        try {
          retried = app.idempotency.call(NAME, String.class).key(key).execute(() -> "charged-" + charges.incrementAndGet());
        } catch (IdempotencyInProgressException | IdempotencyStoreException e) {
          // not yet
        }
      } while (retried == null && System.nanoTime() < deadline && sleep(50));
      assertThat(retried).isNotNull();
      assertThat(retried.replayed()).as("the retry replays the first run's outcome").isTrue();
      assertThat(retried.value()).isEqualTo("charged-1");
      assertThat(app.events.count(Type.EXECUTED)).as("recorded late, once").isEqualTo(1);
      assertThat(app.events.count(Type.LEASE_TAKEN_OVER)).isZero();

      int lost = 0;
      for (int i = 0; i < 3; i++) {
        CallResult<String> again = app.idempotency.call(NAME, String.class).key(key)
            .execute(() -> "charged-" + charges.incrementAndGet());
        if (!again.replayed() || !again.value().equals("charged-1")) {
          lost++;
        }
      }
      int duplicated = charges.get() - 1;
      Figures.of("DatabaseFaultTest.cutAfterTheMethodRan[" + store + "]")
          .set("threads", 1).set("keys", 1).set("duplicatesSent", 4).set("executions", charges.get())
          .set("faults", proxy.faults()).set("lost", lost).set("duplicated", duplicated)
          .report();
      assertThat(lost).as("lost").isZero();
      assertThat(duplicated).as("duplicated: the card was charged once").isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"drop-mid-statement", "cut"})
  void joinedMode_faultBetweenTheWriteAndItsCompletion_leavesExactlyOneDatabaseEffect(String fault) throws Exception {
    try (FaultProxy proxy = ProxiedPostgres.proxy();
         AppInstance app = AppInstance.on(ProxiedPostgres.pool(proxy, 4, "joined"), TransactionMode.JOINED,
             Duration.ofSeconds(2), true, UnaryOperator.identity())) {
      LEDGER.createTable(app.jdbi);
      String run = Calls.newRun();
      String key = run + ":k";
      AtomicInteger executions = new AtomicInteger();
      Throwable failed = catchThrowable(() -> app.jdbi.inTransaction(h ->
          app.idempotency.call(NAME, String.class).key(key).run(() -> {
            executions.incrementAndGet();
            LEDGER.append(h, run, key, "first");
            if (fault.equals("cut")) {
              proxy.refuseNew();
              proxy.cutAll();
            } else {
              proxy.dropAfter(24); // the completion UPDATE reaches the server only in part
            }
            return "first";
          })));
      assertThat(failed).as("the caller learns that the transaction did not commit").isNotNull();

      proxy.pass();
      AtomicInteger retries = new AtomicInteger();
      String result = awaitTakeover(() -> {
        retries.incrementAndGet();
        return app.jdbi.inTransaction(h -> app.idempotency.call(NAME, String.class).key(key).run(() -> {
          executions.incrementAndGet();
          LEDGER.append(h, run, key, "retry");
          return "retry";
        }));
      });
      assertThat(result).isEqualTo("retry");
      Map<String, Integer> effects = LEDGER.rowsPerKey(app.jdbi, run);
      int lost = effects.containsKey(key) ? 0 : 1;
      int duplicated = effects.values().stream().mapToInt(n -> n - 1).sum();
      Figures.of("DatabaseFaultTest.joinedFault[" + fault + "]")
          .set("threads", 1).set("keys", 1).set("duplicatesSent", retries.get()).set("executions", executions.get())
          .set("faults", proxy.faults()).set("lost", lost).set("duplicated", duplicated)
          .report();
      assertThat(effects).as("exactly one database effect").isEqualTo(Map.of(key, 1));
      assertThat(LEDGER.executors(app.jdbi, run)).containsEntry(key, "retry");
    }
  }

  private static boolean sleep(long millis) throws InterruptedException {
    Thread.sleep(millis);
    return true;
  }

  /** Repeats {@code call} while the store is still recovering (a pool refilling). */
  private static <T> T awaitRecovery(java.util.concurrent.Callable<T> call) throws Exception {
    return retry(call, IdempotencyStoreException.class);
  }

  /** Repeats {@code call} while the key is in progress (or the store recovering), until the lease runs out. */
  private static <T> T awaitTakeover(java.util.concurrent.Callable<T> call) throws Exception {
    return retry(call, IdempotencyInProgressException.class, IdempotencyStoreException.class,
        org.jdbi.v3.core.JdbiException.class);
  }

  @SafeVarargs
  private static <T> T retry(java.util.concurrent.Callable<T> call, Class<? extends Exception>... transientTypes)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        return call.call();
      } catch (Exception e) {
        boolean isTransient = java.util.Arrays.stream(transientTypes).anyMatch(t -> t.isInstance(e));
        if (!isTransient || System.nanoTime() - deadline > 0) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }
}
