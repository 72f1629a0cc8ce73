package io.idempotent.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The exact cost per message of each batched consumer of {@link BatchConsumerBenchmark} on PostgreSQL, what
 * does not move with the machine's load: {@code batches} batches of {@value BatchConsumerBenchmark#BATCH} new
 * messages each, counted by {@link PostgresCosts} (round trips, statements, commits, WAL flushes, bytes, WAL
 * bytes, server CPU), with the calling thread's CPU time, per message. Fails when a consumer did not place
 * each order once.
 *
 * <pre>{@code java -cp benchmarks/target/benchmarks.jar io.idempotent.benchmarks.BatchCosts [batches] [markdown file]}</pre>
 */
public final class BatchCosts {

  private BatchCosts() {}

  public static void main(String[] args) throws Exception {
    int batches = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    Path markdown = args.length > 1 ? Path.of(args[1]) : null;
    int size = BatchConsumerBenchmark.BATCH;
    StringBuilder table = new StringBuilder();
    try (PostgresCosts meter = new PostgresCosts();
        SqlRig rig = new SqlRig(BenchDatabase.postgres, 4);
        BatchConsumers consumers = new BatchConsumers(rig)) {
      table.append(String.format(Locale.ROOT, "Per message on %s, batches of %d, averaged over %,d batches"
          + " (BatchCosts):%n%n", meter.database(), size, batches));
      table.append("| consumer | ").append(String.join(" | ", meter.columns())).append(" | client CPU µs |\n");
      table.append("| --- |").append(" ---: |".repeat(meter.columns().size() + 1)).append('\n');
      com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      for (BatchConsumers.Mode mode : BatchConsumers.Mode.values()) {
        Keys keys = new Keys();
        for (int i = 0; i < batches / 4; i++) { // warm-up
          consumers.consume(mode, BatchConsumers.freshBatch(keys, size));
        }
        long placed = consumers.orders.executions.get();
        meter.start();
        long cpu = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < batches; i++) {
          consumers.consume(mode, BatchConsumers.freshBatch(keys, size));
        }
        cpu = threads.getCurrentThreadCpuTime() - cpu;
        double[] counts = meter.stop(mode.name());
        long messages = (long) batches * size;
        if (consumers.orders.executions.get() - placed != messages) {
          throw new IllegalStateException(mode + ": " + (consumers.orders.executions.get() - placed)
              + " orders placed for " + messages + " messages");
        }
        table.append("| ").append(mode).append(" |");
        for (int i = 0; i < counts.length; i++) {
          table.append(String.format(Locale.ROOT, " %." + meter.decimals(i) + "f |", counts[i] / messages));
        }
        table.append(String.format(Locale.ROOT, " %.1f |%n", cpu / 1_000.0 / messages));
      }
      rig.requireOneOrderPerExecution("every consumer", consumers.orders.executions.get());
    }
    System.out.print(table);
    if (markdown != null) {
      Files.writeString(markdown, table, StandardCharsets.UTF_8);
    }
  }
}
