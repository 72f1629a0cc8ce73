package io.idempotent.examples.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.shop.HttpResponse;
import io.idempotent.examples.shop.Ledger;
import java.time.LocalDate;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every scenario of the demo as a test, on an empty database: the counts the demo's table shows are
 * asserted here, along with what each fake external system saw. A subclass names the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ScenarioTestBase {

  DemoEnvironment env;

  /** The JDBI store settings of an empty database. */
  abstract Map<String, String> database();

  @BeforeAll
  void open() {
    env = DemoEnvironment.open(database());
    assertThat(env.liveRecords()).as("records in a fresh database").isZero();
  }

  /** Runs after the environment is closed: drop what {@link #database()} created. */
  void dropDatabase() {}

  @AfterAll
  void close() {
    try {
      if (env != null) {
        env.close();
      }
    } finally {
      dropDatabase();
    }
  }

  /** The table's four numbers, and that every call either ran the method or was absorbed. */
  static void assertCounts(ScenarioResult r, long calls, long executions, long absorbed, long sideEffects) {
    assertThat(r.calls()).as("calls").isEqualTo(calls);
    assertThat(r.executions()).as("executions").isEqualTo(executions);
    assertThat(r.absorbed()).as("absorbed").isEqualTo(absorbed);
    assertThat(r.sideEffects()).as("side effects").isEqualTo(sideEffects);
  }

  @Test
  void clientRetry_responsesLost_chargesOnceAndReplaysTheFirstResponse() {
    ClientRetryScenario s = new ClientRetryScenario();
    assertCounts(s.run(env), 3, 1, 2, 1);
    assertThat(s.gateway.chargesFor("alice/co-1001")).isEqualTo(1);
    assertThat(s.responses).extracting(HttpResponse::status).containsOnly(201);
    assertThat(s.responses).extracting(HttpResponse::replayed).containsExactly(false, true, true);
    assertThat(s.responses).extracting(HttpResponse::body).containsOnly(s.responses.get(0).body());
  }

  @Test
  void doubleClick_burstOfIdenticalSubmissions_runsOnceAndAnswersTheOthers409OrReplay() throws Exception {
    DoubleClickScenario s = new DoubleClickScenario();
    assertCounts(s.run(env), DoubleClickScenario.CLICKS, 1, DoubleClickScenario.CLICKS - 1, 1);
    assertThat(s.responses).filteredOn(r -> r.status() == 201 && !r.replayed()).hasSize(1);
    long inProgress = Responses.withStatus(s.responses, 409);
    long replayed = s.responses.stream().filter(HttpResponse::replayed).count();
    assertThat(inProgress + replayed).as("409 while it ran, the recorded 201 after").isEqualTo(DoubleClickScenario.CLICKS - 1);
  }

  @Test
  void reusedKey_differentPayload_isRefusedWith422AndNothingRuns() {
    ReusedKeyScenario s = new ReusedKeyScenario();
    assertCounts(s.run(env), 2, 1, 1, 1);
    assertThat(s.responses).extracting(HttpResponse::status).containsExactly(201, 422);
  }

  @Test
  void transientFailure_retryWithTheSameKey_runsAgainButChargesOnce() {
    TransientFailureScenario s = new TransientFailureScenario();
    assertCounts(s.run(env), 2, 2, 0, 1);
    assertThat(s.responses).extracting(HttpResponse::status).containsExactly(503, 201);
    assertThat(s.gateway.chargesFor("alice/co-1004")).isEqualTo(1);
    assertThat(s.warehouse.reservations()).isEqualTo(1);
  }

  @Test
  void finalFailure_declinedCard_isRecordedAndReplayedWithoutAskingTheGatewayAgain() {
    FinalFailureScenario s = new FinalFailureScenario();
    assertCounts(s.run(env), 2, 1, 1, 1);
    assertThat(s.gateway.declines()).isEqualTo(1);
    assertThat(s.gateway.charges()).isZero();
    assertThat(s.responses).extracting(HttpResponse::status).containsExactly(402, 402);
    assertThat(s.responses).extracting(HttpResponse::replayed).containsExactly(false, true);
  }

  @Test
  void scheduledJob_threeInstancesTriggeringOften_settleEachDayOnce() throws Exception {
    LocalDate today = LocalDate.of(2025, 6, 2);
    ScheduledJobScenario s = new ScheduledJobScenario(today);
    int calls = ScheduledJobScenario.INSTANCES.size() * ScheduledJobScenario.TRIGGERS_PER_DAY * 2;
    ScenarioResult r = s.run(env);
    assertCounts(r, calls, 2, calls - 2, 2);
    Ledger ledger = new Ledger(env.jdbi());
    assertThat(ledger.rowsFor(today.minusDays(1))).isEqualTo(1);
    assertThat(ledger.rowsFor(today)).isEqualTo(1);
    // each run (2 s) outlasted its lease (1.2 s): only renewals kept the other instances from taking over
    assertThat(s.renewals).as("lease renewals").isPositive();
    assertThat(s.skipped).as("triggers that met a run in progress").isPositive();
    assertThat(s.skipped + s.replayed).isEqualTo(calls - 2);
  }

  @Test
  void webhook_eachEventDeliveredTwiceOutOfOrder_emailsOncePerEvent() throws Exception {
    WebhookScenario s = new WebhookScenario();
    assertCounts(s.run(env), 6, 3, 3, 3);
    for (int e = 0; e < WebhookScenario.EVENTS.size(); e++) {
      assertThat(s.mailer.sentTo(WebhookScenario.customer(e))).isEqualTo(1);
    }
  }

  @Test
  void consumer_redeliveriesOnConcurrentThreads_shipEachOrderOnce() throws Exception {
    ConsumerScenario s = new ConsumerScenario();
    assertCounts(s.run(env), 12, 6, 6, 6);
    for (int m = 0; m < ConsumerScenario.MESSAGES; m++) {
      assertThat(s.warehouse.shipmentsOf(ConsumerScenario.orderOf(m))).isEqualTo(1);
    }
  }

  @Test
  void oneTimeToken_doubleSubmitBackButtonAndForgery_chargeOncePerRenderedForm() throws Exception {
    OneTimeTokenScenario s = new OneTimeTokenScenario();
    assertCounts(s.run(env), 8, 2, 6, 2);
    assertThat(Responses.withStatus(s.responses, 201)).isEqualTo(2);
    assertThat(Responses.withStatus(s.responses, 409)).as("double clicks and the back button").isEqualTo(5);
    assertThat(Responses.withStatus(s.responses, 400)).as("the forged token").isEqualTo(1);
  }

  @Test
  void statusGuard_concurrentCallers_moveTheOrderOnceAndSendOneReceipt() throws Exception {
    StatusGuardScenario s = new StatusGuardScenario();
    assertCounts(s.run(env), 6, 1, 5, 1);
    assertThat(s.finalStatus).isEqualTo("PAID");
    assertThat(s.moved).containsOnlyOnce(true);
  }
}
