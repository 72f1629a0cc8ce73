package io.idempotent.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.CallResult;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.OnInProgress;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.IdempotencyStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;

/**
 * One process of the clock-skew test, meant to run under libfaketime with its clock shifted. It opens
 * one store ({@code jdbi} or {@code jvmclock} on PostgreSQL, or {@code redis}), prints
 * {@code READY clock=<System.currentTimeMillis()>} so that the test can check the shift, then obeys
 * commands on standard input, one per line:
 *
 * <ul>
 *   <li>{@code HOLD key millis}: calls {@code key} in a thread of its own, whose body prints
 *       {@code STARTED key} and runs {@code millis}; then prints a {@code RESULT} line;
 *   <li>{@code CALL key}: calls {@code key} once, refusing rather than waiting when it is in progress:
 *       {@code RESULT key EXECUTED|REPLAYED value}, {@code REFUSED key} or {@code ERROR key text};
 *   <li>{@code BURST prefix keys threads millis}: calls keys {@code prefix0..} from several threads until
 *       each is answered (a refused call is sent again), bodies lasting {@code millis}; prints
 *       {@code BURST executed=n} followed by one {@code BR key value} line per key and {@code BURSTEND};
 *   <li>{@code QUIT}.
 * </ul>
 *
 * Every call has the lease and TTL given as {@code --lease} and {@code --ttl} (ISO-8601 durations).
 */
public final class SkewWorker {

  private final Idempotency idempotency;
  private final String name;
  private final Duration lease;
  private final Duration ttl;

  private SkewWorker(Idempotency idempotency, String name, Duration lease, Duration ttl) {
    this.idempotency = idempotency;
    this.name = name;
    this.lease = lease;
    this.ttl = ttl;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> o = new ConcurrentHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      o.put(a.substring(2, eq), a.substring(eq + 1));
    }
    List<AutoCloseable> toClose = new ArrayList<>();
    IdempotencyStore store = openStore(o.get("store"), o, toClose);
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
    SkewWorker worker = new SkewWorker(idempotency, o.get("name"), Duration.parse(o.get("lease")),
        Duration.parse(o.get("ttl")));
    say("READY clock=" + System.currentTimeMillis());
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.equals("QUIT")) {
      worker.obey(line.split(" "));
    }
    for (AutoCloseable c : toClose) {
      c.close();
    }
    System.exit(0);
  }

  /** The store named {@code kind}; what must be closed at the end goes to {@code toClose}. */
  public static IdempotencyStore openStore(String kind, Map<String, String> o, List<AutoCloseable> toClose) {
    if (kind.equals("redis")) {
      RedisIdempotencyStore redis = RedisIdempotencyStore.builder().host(o.get("redisHost"))
          .port(Integer.parseInt(o.get("redisPort"))).database(Integer.parseInt(o.get("redisDatabase")))
          .prefix(o.get("redisPrefix")).build();
      toClose.add(redis);
      return redis;
    }
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(o.get("url"));
    hc.setUsername(o.get("user"));
    hc.setPassword(o.get("password"));
    hc.setMaximumPoolSize(8);
    hc.setPoolName("skew-" + o.get("name"));
    HikariDataSource pool = new HikariDataSource(hc);
    toClose.add(pool);
    Jdbi jdbi = Jdbi.create(pool);
    return kind.equals("jvmclock")
        ? new JvmClockTableStore(jdbi)
        : JdbiIdempotencyStore.builder(jdbi).table(o.get("table")).build();
  }

  private void obey(String[] c) throws InterruptedException {
    switch (c[0]) {
      case "HOLD" -> {
        Thread t = new Thread(() -> say(call(c[1], Long.parseLong(c[2]), true)), "hold-" + c[1]);
        t.setDaemon(true);
        t.start();
      }
      case "CALL" -> say(call(c[1], 0, false));
      case "BURST" -> burst(c[1], Integer.parseInt(c[2]), Integer.parseInt(c[3]), Long.parseLong(c[4]));
      default -> say("ERROR unknown command " + String.join(" ", c));
    }
  }

  /** One call of {@code key}; its report line. */
  private String call(String key, long bodyMillis, boolean announce) {
    try {
      CallResult<String> r = idempotency.call("skew", String.class).key(key).lease(lease).ttl(ttl)
          .onInProgress(OnInProgress.THROW)
          .execute(() -> {
            if (announce) {
              say("STARTED " + key);
            }
            Thread.sleep(bodyMillis);
            return name + "@" + System.nanoTime();
          });
      return "RESULT " + key + " " + (r.replayed() ? "REPLAYED" : "EXECUTED") + " " + r.value();
    } catch (IdempotencyInProgressException e) {
      return "REFUSED " + key;
    } catch (Exception e) {
      return "ERROR " + key + " " + e.toString().replace('\n', ' ');
    }
  }

  private void burst(String prefix, int keys, int threads, long bodyMillis) throws InterruptedException {
    ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>();
    for (int i = 0; i < keys; i++) {
      queue.add(prefix + i);
    }
    Map<String, String> results = new ConcurrentHashMap<>();
    AtomicLong executed = new AtomicLong();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        String key;
        while ((key = queue.poll()) != null) {
          String line = call(key, bodyMillis, false);
          if (line.startsWith("RESULT ")) {
            String[] parts = line.split(" ", 4);
            results.put(key, parts[3]);
            if (parts[2].equals("EXECUTED")) {
              executed.incrementAndGet();
            }
          } else {
            queue.add(key); // refused while another runs it, or a transient error: later
            try {
              Thread.sleep(5);
            } catch (InterruptedException e) {
              return;
            }
          }
        }
      }, "burst-" + t);
      running.add(thread);
      thread.start();
    }
    for (Thread t : running) {
      t.join();
    }
    StringBuilder sb = new StringBuilder("BURST executed=" + executed);
    results.forEach((k, v) -> sb.append('\n').append("BR ").append(k).append(' ').append(v));
    sb.append('\n').append("BURSTEND");
    say(sb.toString());
  }

  private static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
