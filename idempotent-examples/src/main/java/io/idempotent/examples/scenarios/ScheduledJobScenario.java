package io.idempotent.examples.scenarios;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyEvent;
import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.OutcomeTally;
import io.idempotent.examples.shop.Ledger;
import io.idempotent.examples.shop.SettlementJob;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Scenario 5: three application instances, each with its own connection pool, store and engine on the
 * one database, trigger the daily settlement of yesterday and then of today, every {@link #INTERVAL}.
 * A run takes {@link #RUN_TIME}: longer than the trigger interval and longer than its lease, which the
 * engine renews while the run goes on. Each day is settled once; every other trigger is skipped (the
 * day is being settled) or replayed (it is settled).
 *
 * <p>Triggers do not wait for each other: each is handed to the instance's worker threads, as a
 * scheduler that allows overlapping runs does, so an instance's own later triggers also meet its run.
 */
final class ScheduledJobScenario implements Scenario {

  static final List<String> INSTANCES = List.of("instance-a", "instance-b", "instance-c");
  static final int TRIGGERS_PER_DAY = 12;
  static final Duration INTERVAL = Duration.ofMillis(250);
  static final Duration RUN_TIME = Duration.ofMillis(2_000);
  static final Duration LEASE = Duration.ofMillis(1_200);

  final List<LocalDate> days;
  final List<SettlementJob> jobs = new ArrayList<>();
  int ledgerRowsWritten;
  int renewals;
  long skipped;
  long replayed;

  ScheduledJobScenario(LocalDate today) {
    this.days = List.of(today.minusDays(1), today);
  }

  @Override
  public String id() {
    return "5";
  }

  @Override
  public String title() {
    return "Scheduled job on " + INSTANCES.size() + " instances";
  }

  @Override
  public ScenarioResult run(DemoEnvironment env) throws Exception {
    List<Instance> instances = new ArrayList<>();
    try {
      // names unique to this run, so that the ledger rows it wrote can be told from any other process's
      String run = UUID.randomUUID().toString().substring(0, 8);
      for (String name : INSTANCES) {
        instances.add(new Instance(name + "/" + run, env));
      }
      Ledger ledger = new Ledger(env.jdbi());
      OutcomeTally.Mark mark = env.tally().mark();
      int calls = 0;
      for (LocalDate day : days) {
        List<Future<CallOutcome>> triggers = new ArrayList<>();
        for (int t = 0; t < TRIGGERS_PER_DAY; t++) {
          for (Instance instance : instances) {
            triggers.add(instance.workers.submit(() -> instance.job.dailySettlement(day)));
          }
          Thread.sleep(INTERVAL.toMillis());
        }
        for (Future<CallOutcome> trigger : triggers) {
          trigger.get(2, TimeUnit.MINUTES);
        }
        calls += triggers.size();
      }
      ledgerRowsWritten = ledger.rowsWrittenBy(jobs.stream().map(SettlementJob::instance).toList());
      renewals = instances.stream().mapToInt(i -> i.store.renewals()).sum();
      long executions = jobs.stream().mapToLong(SettlementJob::executions).sum();
      String ranOn = jobs.stream().filter(j -> j.executions() > 0)
          .map(j -> j.instance().substring("instance-".length(), "instance-".length() + 1))
          .collect(Collectors.joining(", "));
      skipped = mark.since(SettlementJob.NAME, IdempotencyEvent.Type.SKIPPED);
      replayed = mark.since(SettlementJob.NAME, IdempotencyEvent.Type.REPLAYED);
      String how = String.format(Locale.ROOT,
          "trigger every %d ms, run %.1f s, lease %.1f s renewed %dx; %d skipped, %d replayed%s",
          INTERVAL.toMillis(), RUN_TIME.toMillis() / 1000.0, LEASE.toMillis() / 1000.0, renewals,
          skipped, replayed, ranOn.isEmpty() ? "" : "; ran on " + ranOn);
      return new ScenarioResult(id(), title(), calls, executions, mark.absorbedSince(SettlementJob.NAME),
          ledgerRowsWritten, "ledger row", how);
    } finally {
      instances.forEach(Instance::close);
    }
  }

  /** One application instance: its own pool and store, its own engine, its own scheduler threads. */
  private final class Instance {
    final JdbiIdempotencyStore jdbiStore;
    final RenewalCountingStore store;
    final SettlementJob job;
    final ExecutorService workers = Executors.newCachedThreadPool();

    Instance(String name, DemoEnvironment env) {
      this.jdbiStore = env.openStore(4); // a claim, a renewal and a ledger row at a time at most
      this.store = new RenewalCountingStore(jdbiStore);
      Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
          .store(store)
          .listener(env.tally())
          .build());
      this.job = new SettlementJob(name, idempotency, new Ledger(jdbiStore.jdbi()), RUN_TIME, LEASE);
      jobs.add(job);
    }

    void close() {
      workers.shutdownNow();
      jdbiStore.close();
    }
  }
}
