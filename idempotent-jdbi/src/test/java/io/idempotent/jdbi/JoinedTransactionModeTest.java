package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyEvent;
import io.idempotent.OnInProgress;
import io.idempotent.internal.StoredKeys;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.OneTimeTokens;
import io.idempotent.spi.RecordState;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Calls in and out of the caller's transaction against a business table in the same database: a joined
 * mode (undeclared calls are transactional) and declared effects in the other modes.
 */
class JoinedTransactionModeTest {

  private static final String NAME = "orders.create";

  private static Jdbi prepare(TestDatabase db) {
    db.requireReachable();
    Jdbi jdbi = db.jdbi();
    jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS test_orders (id VARCHAR(100) PRIMARY KEY)"));
    return jdbi;
  }

  private static JdbiIdempotencyStore joinedStore(TestDatabase db) {
    return db.storeBuilder().transactionMode(TransactionMode.JOINED).build();
  }

  private static Idempotency on(io.idempotent.spi.IdempotencyStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).build());
  }

  private static boolean orderExists(Jdbi jdbi, String id) {
    try (Handle h = jdbi.open()) {
      return h.createQuery("SELECT COUNT(*) FROM test_orders WHERE id = :id").bind("id", id)
          .mapTo(Integer.class).one() == 1;
    }
  }

  private static <T> T fromAnotherThread(java.util.concurrent.Callable<T> look) throws Exception {
    java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      return other.submit(look).get(10, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      other.shutdownNow();
    }
  }

  private static String storedKey(String key) {
    return StoredKeys.compose(NAME, null, key, JdbiIdempotencyStore.KEY_RULES);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_businessInsertAndCompletion_commitTogether(TestDatabase db) throws Exception {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();

    String result = jdbi.inTransaction(h -> {
      String r = idempotency.call(NAME, String.class).key(order).run(() -> {
        h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
        return "created " + order;
      });
      // not committed yet: from another thread the key is not completed (claim and outcome are uncommitted)
      assertThat(fromAnotherThread(() -> store.find(storedKey(order)).map(rec -> rec.state())))
          .isNotEqualTo(java.util.Optional.of(RecordState.COMPLETED));
      assertThat(orderExists(jdbi, order)).isFalse();
      return r;
    });

    assertThat(result).isEqualTo("created " + order);
    assertThat(orderExists(jdbi, order)).isTrue();
    assertThat(store.find(storedKey(order)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    // and the replay needs no transaction and runs nothing
    assertThat(idempotency.call(NAME, String.class).key(order).execute(() -> "again").replayed()).isTrue();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_rollbackAfterTheMethod_leavesNeither_andARetryRunsAgain(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(() -> jdbi.useTransaction(h -> {
      idempotency.call(NAME, String.class).key(order).run(() -> {
        runs.incrementAndGet();
        h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
        return "created";
      });
      throw new IllegalStateException("forced rollback after the method");
    })).hasMessage("forced rollback after the method");

    assertThat(orderExists(jdbi, order)).isFalse();
    assertThat(store.find(storedKey(order))).as("the claim was released on rollback").isEmpty();

    String retried = jdbi.inTransaction(h -> idempotency.call(NAME, String.class).key(order).run(() -> {
      runs.incrementAndGet();
      h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
      return "created";
    }));
    assertThat(retried).isEqualTo("created");
    assertThat(runs).hasValue(2);
    assertThat(orderExists(jdbi, order)).isTrue();
    assertThat(store.find(storedKey(order)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_useTransactionOnAHandleFromOpen_isJoined_andItsRollbackFreesTheKey(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    try (Handle h = jdbi.open()) {
      assertThatThrownBy(() -> h.useTransaction(t -> {
        createOrder(idempotency, t, order, runs);
        assertThat(orderExists(jdbi, order)).as("not committed yet").isFalse();
        throw new IllegalStateException("forced rollback");
      })).hasMessage("forced rollback");
    }
    assertThat(orderExists(jdbi, order)).isFalse();
    assertThat(store.find(storedKey(order))).as("released with the rollback").isEmpty();

    try (Handle h = jdbi.open()) {
      h.useTransaction(t -> createOrder(idempotency, t, order, runs));
    }
    assertThat(runs).hasValue(2);
    assertThat(orderExists(jdbi, order)).isTrue();
    assertThat(store.find(storedKey(order)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_beginAndRollbackOnAHandleFromOpen_isJoined_andARetryRunsAgain(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    try (Handle h = jdbi.open()) {
      h.begin();
      createOrder(idempotency, h, order, runs);
      h.rollback();
    }
    assertThat(store.find(storedKey(order))).as("released with the rollback").isEmpty();

    try (Handle h = jdbi.open()) {
      h.begin();
      createOrder(idempotency, h, order, runs);
      h.commit();
    }
    assertThat(runs).hasValue(2);
    assertThat(orderExists(jdbi, order)).isTrue();
    assertThat(store.find(storedKey(order)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_transactionsOnTwoHandlesOfTheThread_areRefusedBeforeTheMethodRuns(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    try (Handle first = jdbi.open(); Handle second = jdbi.open()) {
      first.begin();
      second.begin();
      assertThatThrownBy(() -> createOrder(idempotency, second, order, runs))
          .isInstanceOf(io.idempotent.IdempotencyStoreException.class).cause()
          .hasMessageContaining("2 handles");
      first.rollback();
      second.rollback();
    }
    assertThat(runs).hasValue(0);
    assertThat(store.find(storedKey(order))).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_methodThatOpensASecondTransaction_hasItsOutcomeWrittenInTheTransactionThatHoldsItsClaim(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    Handle[] second = new Handle[1];
    try {
      assertThatThrownBy(() -> jdbi.useTransaction(h -> {
        idempotency.call(NAME, String.class).key(order).run(() -> {
          h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
          second[0] = jdbi.open();
          second[0].begin();
          return "created";
        });
        throw new IllegalStateException("the claim's transaction rolls back");
      })).hasMessage("the claim's transaction rolls back");
      assertThat(orderExists(jdbi, order)).isFalse();
      assertThat(store.find(storedKey(order))).as("claim and outcome went with the claim's transaction").isEmpty();
    } finally {
      if (second[0] != null) {
        second[0].rollback();
        second[0].close();
      }
    }
  }

  /** A declared final exception, as a business outcome: "this order can never be created". */
  public static final class OrderRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OrderRefusedException(String message) {
      super(message);
    }
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_finalFailure_isKeptOnlyIfTheCallersTransactionCommits(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store)
        .listener(e -> events.add(e.type())).build());
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();
    IdempotentCallRun refuse = commit -> jdbi.useTransaction(h -> {
      try {
        idempotency.call(NAME, String.class).key(order).finalExceptions(OrderRefusedException.class).run(() -> {
          runs.incrementAndGet();
          h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
          throw new OrderRefusedException("refused " + order);
        });
      } catch (OrderRefusedException e) {
        if (!commit) {
          throw e; // the caller's transaction rolls back with the failure: so does its record
        }
      }
    });

    assertThatThrownBy(() -> refuse.run(false)).isInstanceOf(OrderRefusedException.class);
    assertThat(events).contains(IdempotencyEvent.Type.FAILURE_STORED);
    assertThat(store.find(storedKey(order))).as("rolled back with the transaction that held it").isEmpty();

    refuse.run(true); // this time the caller commits, the failure's writes included
    assertThat(runs).as("the retry ran: nothing of the first attempt was kept").hasValue(2);
    assertThat(store.find(storedKey(order)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    assertThatThrownBy(() -> refuse.run(false)).isInstanceOf(OrderRefusedException.class)
        .hasMessage("refused " + order);
    assertThat(runs).as("the committed final failure is replayed").hasValue(2);
  }

  @FunctionalInterface
  private interface IdempotentCallRun {
    void run(boolean commit);
  }

  @ParameterizedTest
  @MethodSource("sameKeyTwiceCases")
  void joined_sameKeyTwiceInOneTransaction_isAnsweredAtOnce_asOnInProgressSays(
      TestDatabase db, OnInProgress policy, boolean leaseRanOut) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), () ->
        jdbi.useTransaction(h -> {
          assertThat(idempotency.call(NAME, String.class).key(order).lease(java.time.Duration.ofSeconds(1))
              .run(() -> "run " + runs.incrementAndGet())).isEqualTo("run 1");
          if (leaseRanOut) {
            Thread.sleep(1_100); // the committed claim has expired: a claim would take it over, or wait for it
          }
          // the transaction itself sees the outcome it wrote: replayed, whatever the policy, never run again
          var second = idempotency.call(NAME, String.class).key(order).onInProgress(policy);
          assertThat(second.execute(() -> "run " + runs.incrementAndGet()).value()).isEqualTo("run 1");
        }));
    assertThat(runs).hasValue(1);
    assertThat(store.find(storedKey(order)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> sameKeyTwiceCases() {
    return TestDatabase.all().flatMap(db -> java.util.stream.Stream.of(OnInProgress.THROW, OnInProgress.SKIP)
        .flatMap(p -> java.util.stream.Stream.of(false, true)
            .map(late -> org.junit.jupiter.params.provider.Arguments.of(db, p, late))));
  }

  private static void createOrder(Idempotency idempotency, Handle h, String order, AtomicInteger runs) {
    idempotency.call(NAME, String.class).key(order).run(() -> {
      runs.incrementAndGet();
      h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
      return "created";
    });
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_withoutATransactionOnTheThread_isRefusedBeforeTheMethodRuns(TestDatabase db) {
    prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String key = "plain-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();
    assertThatThrownBy(() -> idempotency.call(NAME, String.class).key(key).run(() -> "v" + runs.incrementAndGet()))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("takes this call as transactional").hasMessageContaining("its mode joins")
        .hasMessageContaining("no transaction open on the store's Jdbi")
        .hasMessageContaining("Effects.EXTERNAL").hasMessageContaining("requireTransaction(false)");
    assertThat(runs).hasValue(0);
    assertThat(store.find(storedKey(key))).isEmpty();
    assertThat(Idempotency.lastOutcome()).isNull();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_transactionOnASecondJdbiOfTheSameDatabase_isRefused_andItsRollbackLeavesNothing(TestDatabase db) {
    prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    Jdbi another = Jdbi.create(db.pool()); // the application's own Jdbi, not the store's
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(() -> another.useTransaction(h -> {
      createOrder(idempotency, h, order, runs);
      throw new IllegalStateException("rollback");
    })).isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("another Jdbi instance");
    assertThat(runs).hasValue(0);
    assertThat(store.find(storedKey(order))).as("nothing committed behind the caller's back").isEmpty();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_withoutATransaction_whenAllowed_recordsOnItsOwn(TestDatabase db) {
    prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(TransactionMode.JOINED)
        .requireTransaction(false).build();
    Idempotency idempotency = on(store);
    String key = "plain-" + UUID.randomUUID();
    assertThat(idempotency.call(NAME, String.class).key(key).run(() -> "v")).isEqualTo("v");
    assertThat(store.find(storedKey(key)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_oneTimeTokens_areIssuedOutsideATransaction_andUsedOnceInOne(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    OneTimeTokens tokens = Idempotency.create(IdempotencyConfig.builder().store(store).build()).tokens("form");
    String token = tokens.issue(java.time.Duration.ofMinutes(5)); // not a method call: no transaction needed

    jdbi.useTransaction(h -> tokens.consume(token));
    assertThatThrownBy(() -> jdbi.useTransaction(h -> tokens.consume(token)))
        .isInstanceOf(io.idempotent.IdempotencyTokenException.class);
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_stageCompletedLaterOnAThreadInItsOwnTransaction_isRecordedOnItsOwn(TestDatabase db) throws Exception {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();
    java.util.concurrent.CompletableFuture<String> pending = new java.util.concurrent.CompletableFuture<>();
    @SuppressWarnings("unchecked")
    Class<java.util.concurrent.CompletionStage<String>> stageType =
        (Class<java.util.concurrent.CompletionStage<String>>) (Class<?>) java.util.concurrent.CompletionStage.class;

    java.util.concurrent.CompletionStage<String> returned = jdbi.inTransaction(h ->
        idempotency.call(NAME, stageType).key(order).run(() -> {
          runs.incrementAndGet();
          h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
          return pending;
        }));
    // another thread, inside an unrelated transaction of its own that rolls back, completes the stage
    Thread other = new Thread(() -> {
      try {
        jdbi.useTransaction(h -> {
          pending.complete("created");
          throw new IllegalStateException("unrelated rollback");
        });
      } catch (IllegalStateException expected) {
        // the unrelated transaction rolled back
      }
    });
    other.start();
    other.join(10_000);

    assertThat(returned.toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("created");
    assertThat(orderExists(jdbi, order)).isTrue();
    assertThat(store.find(storedKey(order)).orElseThrow().state())
        .as("recorded on its own, not in the other thread's rolled-back transaction")
        .isEqualTo(RecordState.COMPLETED);
    var retry = jdbi.inTransaction(h -> idempotency.call(NAME, stageType).key(order).run(() -> {
      runs.incrementAndGet();
      return pending;
    }));
    assertThat(retry.toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("created");
    assertThat(runs).hasValue(1);
  }

  @ParameterizedTest
  @MethodSource("independentModes")
  void undeclared_insideATransaction_inAModeThatDoesNotJoin_isRefusedBeforeAnythingIsWritten(
      TestDatabase db, TransactionMode mode) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(mode).build();
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    assertThatThrownBy(() -> jdbi.useTransaction(h -> createOrder(idempotency, h, order, runs)))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("does not say where its effects live")
        .hasMessageContaining("Effects.TRANSACTIONAL").hasMessageContaining("Effects.EXTERNAL")
        .hasMessageContaining("idempotent.jdbi.mode=joined");
    assertThat(runs).hasValue(0);
    assertThat(store.find(storedKey(order))).isEmpty();
    assertThat(Idempotency.lastOutcome()).isNull();
    // outside a transaction there is nothing to decide: recorded on its own
    assertThat(idempotency.call(NAME, String.class).key(order).run(() -> "plain")).isEqualTo("plain");
  }

  @ParameterizedTest
  @MethodSource("independentModes")
  void external_insideATransaction_isRecordedOnItsOwn_andSurvivesTheRollback(TestDatabase db, TransactionMode mode) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(mode).build();
    Idempotency idempotency = on(store);
    String charge = "charge-" + UUID.randomUUID();
    AtomicInteger charged = new AtomicInteger(); // an effect outside the database: a card charged

    assertThatThrownBy(() -> jdbi.useTransaction(h -> {
      idempotency.call(NAME, String.class).key(charge).effects(Effects.EXTERNAL)
          .run(() -> "charged " + charged.incrementAndGet());
      throw new IllegalStateException("rollback");
    })).hasMessage("rollback");

    assertThat(store.find(storedKey(charge)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    String retried = jdbi.inTransaction(h -> idempotency.call(NAME, String.class).key(charge)
        .effects(Effects.EXTERNAL).run(() -> "charged " + charged.incrementAndGet()));
    assertThat(retried).as("the retry replays: the card is not charged twice").isEqualTo("charged 1");
    assertThat(charged).hasValue(1);
  }

  @ParameterizedTest
  @MethodSource("independentModes")
  void transactional_inAModeThatDoesNotJoin_isWrittenInTheCallersTransaction_andRollsBackWithIt(
      TestDatabase db, TransactionMode mode) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = db.storeBuilder().transactionMode(mode).build();
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();
    IdempotentCallRun place = commit -> jdbi.useTransaction(h -> {
      idempotency.call(NAME, String.class).key(order).effects(Effects.TRANSACTIONAL).run(() -> {
        runs.incrementAndGet();
        h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
        return "created";
      });
      if (!commit) {
        throw new IllegalStateException("rollback after the method");
      }
    });

    assertThatThrownBy(() -> place.run(false)).hasMessage("rollback after the method");
    assertThat(orderExists(jdbi, order)).isFalse();
    assertThat(store.find(storedKey(order))).as("no replay of an effect that was rolled back").isEmpty();
    place.run(true);
    place.run(true);
    assertThat(runs).as("the retry ran once more, then replayed").hasValue(2);
    assertThat(orderExists(jdbi, order)).isTrue();
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void external_inAJoinedMode_withoutATransaction_isRecordedOnItsOwn(TestDatabase db) {
    prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String key = "plain-" + UUID.randomUUID();
    assertThat(idempotency.call(NAME, String.class).key(key).effects(Effects.EXTERNAL).run(() -> "v")).isEqualTo("v");
    assertThat(store.find(storedKey(key)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
  }

  /**
   * A checkout (transactional) that charges a card (an external API) through a nested idempotent call: the
   * checkout's transaction rolls back after the charge; the retry runs the checkout again, and the charge
   * declared external replays the first charge's id instead of charging again; undeclared (transactional
   * in this mode) it rolls back with the checkout and is charged again.
   */
  @ParameterizedTest(name = "{0} charge {1}")
  @MethodSource("nestedCases")
  void nestedCall_declaredExternal_survivesTheOuterRollback_andTheRetryReplaysIt(TestDatabase db, Effects charge) {
    Jdbi jdbi = prepare(db);
    JdbiIdempotencyStore store = joinedStore(db);
    Idempotency idempotency = on(store);
    String order = "order-" + UUID.randomUUID();
    AtomicInteger charges = new AtomicInteger();
    AtomicInteger checkouts = new AtomicInteger();
    java.util.function.Function<Boolean, String> checkout = fail -> jdbi.inTransaction(h ->
        idempotency.call("orders.checkout", String.class).key(order).run(() -> {
          checkouts.incrementAndGet();
          h.execute("INSERT INTO test_orders (id) VALUES (?)", order);
          String chargeId = idempotency.call("cards.charge", String.class).key(order).effects(charge)
              .run(() -> "charge-" + charges.incrementAndGet());
          if (fail) {
            throw new IllegalStateException("the checkout fails after the charge");
          }
          return chargeId;
        }));

    assertThatThrownBy(() -> checkout.apply(true)).hasMessageContaining("after the charge");
    String retried = checkout.apply(false);
    assertThat(checkouts).as("the checkout's rollback left no record: it ran again").hasValue(2);
    if (charge == Effects.EXTERNAL) {
      assertThat(retried).as("the card was charged once").isEqualTo("charge-1");
      assertThat(charges).hasValue(1);
    } else {
      assertThat(retried).as("a transactional charge rolled back with the checkout").isEqualTo("charge-2");
      assertThat(charges).hasValue(2);
    }
    assertThat(orderExists(jdbi, order)).isTrue();
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> nestedCases() {
    return TestDatabase.all().flatMap(db -> java.util.stream.Stream.of(Effects.EXTERNAL, Effects.UNDECLARED)
        .map(e -> org.junit.jupiter.params.provider.Arguments.of(db, e)));
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> independentModes() {
    return TestDatabase.all().flatMap(db -> java.util.stream.Stream.of(TransactionMode.INDEPENDENT,
        TransactionMode.TRANSACTION_SCOPED).map(m -> org.junit.jupiter.params.provider.Arguments.of(db, m)));
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void joined_afterCommit_runsAfterTheCallersCommit_neverAfterARollback_andAtOnceOutsideATransaction(
      TestDatabase db) {
    Jdbi jdbi = prepare(db);
    LastCallClaim store = new LastCallClaim(joinedStore(db));
    List<String> ran = new CopyOnWriteArrayList<>();

    Idempotency idempotency = on(store);
    jdbi.useTransaction(h -> {
      idempotency.call(NAME, String.class).key("after-" + UUID.randomUUID()).run(() -> "created");
      store.afterCommit(() -> ran.add("committed"));
      assertThat(ran).as("not before the commit").isEmpty();
    });
    assertThat(ran).containsExactly("committed");

    assertThatThrownBy(() -> jdbi.useTransaction(h -> {
      idempotency.call(NAME, String.class).key("after-" + UUID.randomUUID()).run(() -> "created");
      store.afterCommit(() -> ran.add("rolled back"));
      throw new IllegalStateException("rollback");
    })).hasMessage("rollback");
    assertThat(ran).as("never after a rollback").containsExactly("committed");

    store.afterCommit(() -> ran.add("no transaction")); // the last call's transaction has ended
    assertThat(ran).containsExactly("committed", "no transaction");
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void external_afterCommit_runsAtOnce_evenInsideACallersTransaction(TestDatabase db) {
    Jdbi jdbi = prepare(db);
    LastCallClaim store = new LastCallClaim(db.storeBuilder().build());
    Idempotency idempotency = on(store);
    List<String> ran = new CopyOnWriteArrayList<>();
    assertThatThrownBy(() -> jdbi.useTransaction(h -> {
      idempotency.call(NAME, String.class).key("after-" + UUID.randomUUID()).effects(Effects.EXTERNAL)
          .run(() -> "charged");
      store.afterCommit(() -> ran.add("written"));
      assertThat(ran).as("the store's own writes have committed already").containsExactly("written");
      throw new IllegalStateException("rollback");
    })).hasMessage("rollback");
    assertThat(ran).containsExactly("written");
  }
}
