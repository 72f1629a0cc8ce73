package io.idempotent.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The parameters of one {@link LoadWorker} process, passed as {@code --name=value} arguments so that a
 * test can start workers with {@code ProcessBuilder}. Immutable.
 *
 * @param mode {@code load} (send every key several times) or {@code hold} (complete some keys, then
 *     hold claims on others mid-execution until the process is killed)
 * @param store {@code jdbi} or {@code layered} (Caffeine near, JDBI far)
 * @param joined whether the ledger row and the completion commit in one transaction
 * @param keys keys to send ({@code load}) or to complete before holding ({@code hold})
 * @param copies how many times this worker sends every key
 * @param hold keys held mid-execution ({@code hold} mode), one thread each
 * @param window the send order goes through the keys in windows of this many, all copies of a window
 *     shuffled together, so that processes started together send the same keys at the same time; 0
 *     shuffles all sends at once
 */
public record WorkerOptions(
    String mode,
    String store,
    boolean joined,
    String url,
    String user,
    String password,
    String table,
    String ledger,
    String run,
    int worker,
    int keys,
    int copies,
    int threads,
    int hold,
    int window,
    long seed,
    Duration lease,
    Duration deadline) {

  public static WorkerOptions parse(String[] args) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (!a.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("Expected --name=value, got " + a);
      }
      m.put(a.substring(2, eq), a.substring(eq + 1));
    }
    return new WorkerOptions(
        m.getOrDefault("mode", "load"),
        m.getOrDefault("store", "jdbi"),
        Boolean.parseBoolean(m.getOrDefault("joined", "false")),
        required(m, "url"),
        m.getOrDefault("user", "idempotent"),
        m.getOrDefault("password", "idempotent"),
        m.getOrDefault("table", "rel_idempotency"),
        m.getOrDefault("ledger", "rel_ledger"),
        required(m, "run"),
        Integer.parseInt(m.getOrDefault("worker", "0")),
        Integer.parseInt(m.getOrDefault("keys", "100")),
        Integer.parseInt(m.getOrDefault("copies", "3")),
        Integer.parseInt(m.getOrDefault("threads", "4")),
        Integer.parseInt(m.getOrDefault("hold", "0")),
        Integer.parseInt(m.getOrDefault("window", "0")),
        Long.parseLong(m.getOrDefault("seed", "1")),
        Duration.parse(m.getOrDefault("lease", "PT30S")),
        Duration.parse(m.getOrDefault("deadline", "PT5M")));
  }

  /** The arguments that {@link #parse} reads back into these options. */
  public List<String> toArgs() {
    List<String> out = new ArrayList<>();
    out.add("--mode=" + mode);
    out.add("--store=" + store);
    out.add("--joined=" + joined);
    out.add("--url=" + url);
    out.add("--user=" + user);
    out.add("--password=" + password);
    out.add("--table=" + table);
    out.add("--ledger=" + ledger);
    out.add("--run=" + run);
    out.add("--worker=" + worker);
    out.add("--keys=" + keys);
    out.add("--copies=" + copies);
    out.add("--threads=" + threads);
    out.add("--hold=" + hold);
    out.add("--window=" + window);
    out.add("--seed=" + seed);
    out.add("--lease=" + lease);
    out.add("--deadline=" + deadline);
    return out;
  }

  /** The key of index {@code i} in this run. */
  public String key(int i) {
    return run + ":" + i;
  }

  /** The key of held index {@code i} in this run (distinct from the load keys). */
  public String heldKey(int i) {
    return run + ":held:" + i;
  }

  public WorkerOptions withWorker(int w) {
    return new WorkerOptions(mode, store, joined, url, user, password, table, ledger, run, w, keys, copies, threads,
        hold, window, seed, lease, deadline);
  }

  private static String required(Map<String, String> m, String name) {
    String v = m.get(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException("Missing --" + name);
    }
    return v;
  }
}
