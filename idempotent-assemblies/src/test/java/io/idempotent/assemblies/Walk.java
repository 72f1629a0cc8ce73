package io.idempotent.assemblies;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyConfigurationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Walks one cell: its callers make their attempts as the cell's event has them, retrying as applications do
 * (a key in progress, a transaction that failed to serialize), and what came back is held against
 * {@link Expected}. What is counted: committed ledger rows and external effects per key, what each caller
 * was answered, and how long the cell took.
 */
final class Walk {

  /** No cell may take longer: a pool or lock stall shows here rather than as a slow build. */
  static final Duration BOUND = Duration.ofSeconds(20);

  private static final ExecutorService CALLERS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "assemblies-caller");
    t.setDaemon(true);
    return t;
  });

  private Walk() {}

  static void cell(Cell cell) throws Exception {
    cell.database().requireReachable();
    EntryPointFixture fixture = EntryPointFixture.of(cell.entryPoint());
    Deployment deployment = Deployments.of(cell.group());
    long started = System.nanoTime();
    long deadline = started + BOUND.toNanos();
    CellRun run = CellRun.begin(cell, deployment);
    try {
      if (cell.event() == Event.CONCURRENT_DUPLICATES) {
        duplicatesAtOnce(run, fixture, deadline);
      } else {
        oneCallerAfterAnother(run, fixture, deadline);
      }
      if (run.expected.refused()) {
        nothingWritten(run);
      } else {
        oneCommittedEffectPerKey(run);
      }
      fixture.check(run);
    } catch (Throwable failed) {
      // what the failed cell left behind (a claim in progress, callers still at it, an exhausted pool the store
      // now takes for unreachable) must not fail the cells after it: their group starts afresh
      try {
        Deployments.discard(cell.group());
      } catch (RuntimeException e) {
        failed.addSuppressed(e);
      }
      throw failed;
    } finally {
      CellRun.end();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(took).as("%s took %s", cell, took).isLessThan(BOUND);
  }

  /** A first call, and the retries the event calls for; a call the design refuses is refused every time. */
  private static void oneCallerAfterAnother(CellRun run, EntryPointFixture fixture, long deadline) {
    Answer first = answered(run, fixture, 0, deadline);
    if (run.expected.refused()) {
      refused(run, first);
      refused(run, answered(run, fixture, 1, deadline));
      return;
    }
    switch (run.cell.event()) {
      case NONE -> {
        Answer.Returned executed = returned(run, first, CallOutcome.EXECUTED, "the first call");
        sameValue(run, executed, returned(run, answered(run, fixture, 1, deadline), CallOutcome.REPLAYED, "the retry"));
      }
      case THROWS -> {
        assertThat(first).as("%s: the first call, whose method fails", run.cell)
            .isInstanceOf(Answer.BusinessFailed.class);
        Answer.Returned executed = returned(run, answered(run, fixture, 1, deadline), CallOutcome.EXECUTED,
            "the retry after the failure");
        sameValue(run, executed, returned(run, answered(run, fixture, 0, deadline), CallOutcome.REPLAYED,
            "the next retry"));
      }
      case ROLLBACK_AFTER_RETURN -> retriesAfterTheRollback(run, fixture, first, deadline);
      default -> throw new IllegalArgumentException(run.cell.event().label);
    }
  }

  private static void retriesAfterTheRollback(CellRun run, EntryPointFixture fixture, Answer first, long deadline) {
    assertThat(first).as("%s: the first call, whose caller fails after it returned", run.cell)
        .isInstanceOf(Answer.CallerRolledBack.class);
    Answer.Returned rolledBack = ((Answer.CallerRolledBack) first).returned();
    assertThat(rolledBack.outcome()).as("%s: the first call", run.cell).isEqualTo(CallOutcome.EXECUTED);
    boolean again = run.expected.retryRunsAgain();
    Answer.Returned retried = returned(run, answered(run, fixture, 1, deadline),
        again ? CallOutcome.EXECUTED : CallOutcome.REPLAYED,
        again ? "the retry after the rollback took the outcome" : "the retry after a rollback the outcome survived");
    if (!again) {
      sameValue(run, rolledBack, retried);
    }
    sameValue(run, retried, returned(run, answered(run, fixture, 0, deadline), CallOutcome.REPLAYED,
        "the next retry"));
  }

  private static void duplicatesAtOnce(CellRun run, EntryPointFixture fixture, long deadline) throws Exception {
    int callers = run.cell.setting().concurrentCallers(run.expected);
    run.duplicates(callers);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(callers);
    List<Future<Answer>> pending = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      int caller = i;
      pending.add(CALLERS.submit(() -> {
        try {
          go.await();
          run.duplicateStarted();
          return answered(run, fixture, caller, deadline);
        } finally {
          done.countDown();
        }
      }));
    }
    go.countDown();
    List<Answer> answers = new ArrayList<>();
    try {
      for (Future<Answer> f : pending) {
        answers.add(f.get(Math.max(1, deadline - System.nanoTime()) + TimeUnit.SECONDS.toNanos(5),
            TimeUnit.NANOSECONDS));
      }
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      pending.forEach(p -> p.cancel(true));
      done.await(10, TimeUnit.SECONDS); // no caller of this cell still at it when the next one begins
      if (e.getCause() instanceof Error error) {
        throw error; // a caller's failed assertion, as it is
      }
      throw e;
    }
    if (run.expected.refused()) {
      answers.forEach(a -> refused(run, a));
      return;
    }
    assertThat(answers).as("%s: the answers of %d callers at once", run.cell, callers)
        .allMatch(a -> a instanceof Answer.Returned)
        .filteredOn(a -> ((Answer.Returned) a).outcome() == CallOutcome.EXECUTED).hasSize(1);
    Answer.Returned executed = answers.stream().map(Answer.Returned.class::cast)
        .filter(a -> a.outcome() == CallOutcome.EXECUTED).findFirst().orElseThrow();
    answers.forEach(a -> sameValue(run, executed, (Answer.Returned) a));
  }

  /**
   * Caller {@code caller}'s answer: attempts until one is not to be retried. An unexpected failure fails the
   * cell at once; a replay is checked against what is committed at that moment.
   */
  private static Answer answered(CellRun run, EntryPointFixture fixture, int caller, long deadline) {
    for (int attempt = 1; ; attempt++) {
      Answer answer = fixture.attempt(run, caller);
      if (answer instanceof Answer.Unexpected u) {
        throw new AssertionError(run.cell + ": caller " + caller + " failed unexpectedly: " + u.what(), u.cause());
      }
      if (!(answer instanceof Answer.Retry retry)) {
        if (answer instanceof Answer.Returned r && r.outcome() == CallOutcome.REPLAYED) {
          assertThat(run.committedEffects(run.key)).as("%s: caller %d was answered with a replay while the"
              + " effect of %s is not committed", run.cell, caller, run.key).isPositive();
        }
        return answer;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(run.cell + ": caller " + caller + " had no answer within " + BOUND + " ("
            + attempt + " attempts, the last: " + retry.why() + ")");
      }
      pause(attempt);
    }
  }

  /** A short, random pause before the next attempt, longer after many. */
  private static void pause(int attempt) {
    try {
      Thread.sleep(1 + ThreadLocalRandom.current().nextInt(attempt < 10 ? 5 : 25));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while retrying", e);
    }
  }

  private static Answer.Returned returned(CellRun run, Answer answer, CallOutcome outcome, String which) {
    assertThat(answer).as("%s: %s", run.cell, which).isInstanceOf(Answer.Returned.class);
    Answer.Returned returned = (Answer.Returned) answer;
    assertThat(returned.outcome()).as("%s: how %s ended", run.cell, which).isEqualTo(outcome);
    return returned;
  }

  private static void sameValue(CellRun run, Answer.Returned first, Answer.Returned other) {
    assertThat(other.value()).as("%s: the value a caller of %s got", run.cell, run.key).isEqualTo(first.value());
    assertThat(classOf(other.value())).as("%s: the class of the value a caller got", run.cell)
        .isEqualTo(classOf(first.value()));
  }

  private static Class<?> classOf(Object value) {
    return value == null ? null : value.getClass();
  }

  /** Refused with a message that names the choice to make. */
  private static void refused(CellRun run, Answer answer) {
    assertThat(answer).as("%s: a call the design refuses", run.cell).isInstanceOf(Answer.Refused.class);
    assertThat(((Answer.Refused) answer).refusal()).as("%s: the refusal", run.cell)
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("did not run").hasMessageContaining("Effects.EXTERNAL");
  }

  private static void nothingWritten(CellRun run) {
    for (String key : run.keys()) {
      assertThat(run.bodiesEntered(key)).as("%s: runs of the method of %s", run.cell, key).isZero();
      assertThat(run.deployment.ledgerRows(key)).as("%s: ledger rows of %s", run.cell, key).isZero();
      assertThat(run.externalEffects(key)).as("%s: external effects of %s", run.cell, key).isZero();
      assertThat(run.deployment.records(key)).as("%s: records of %s", run.cell, key).isZero();
    }
  }

  private static void oneCommittedEffectPerKey(CellRun run) {
    for (String key : run.keys()) {
      int rows = run.deployment.ledgerRows(key);
      int external = run.externalEffects(key);
      assertThat(rows + external).as("%s: committed effects of %s (ledger rows %d, external effects %d)",
          run.cell, key, rows, external).isOne();
    }
  }
}
