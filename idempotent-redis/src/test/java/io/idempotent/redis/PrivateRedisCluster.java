package io.idempotent.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A Redis Cluster of a test's own: {@code masters} masters with one replica each, every node a private
 * {@code redis-server --cluster-enabled yes} on a free port, joined by {@code redis-cli --cluster create}.
 * Nodes give up on a silent peer after {@value #NODE_TIMEOUT_MS} ms, so a killed master's replica is
 * promoted within seconds. {@link #shared()} is one cluster for the test classes that only need one,
 * torn down when the test JVM exits.
 */
final class PrivateRedisCluster implements AutoCloseable {

  static final int NODE_TIMEOUT_MS = 2_000;

  private static PrivateRedisCluster shared;

  private final List<PrivateRedis> nodes;

  private PrivateRedisCluster(List<PrivateRedis> nodes) {
    this.nodes = nodes;
  }

  /** One cluster of 3 masters and 3 replicas for this JVM, started at the first call. */
  static synchronized PrivateRedisCluster shared() throws Exception {
    if (shared == null) {
      shared = launch(3);
      PrivateRedisCluster cluster = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          cluster.close();
        } catch (Exception ignored) {
          // the JVM is going away; the processes die with their kill signal anyway
        }
      }));
    }
    return shared;
  }

  /** Starts {@code masters} masters and as many replicas, and waits until the cluster is ready. */
  static PrivateRedisCluster launch(int masters) throws Exception {
    String cli = PrivateRedis.cliBinary();
    List<PrivateRedis> nodes = new ArrayList<>();
    PrivateRedisCluster cluster = new PrivateRedisCluster(nodes);
    try {
      for (int i = 0; i < 2 * masters; i++) {
        nodes.add(PrivateRedis.launchOn(PrivateRedis.freePort(), "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MS),
            "--appendonly", "no"));
      }
      List<String> create = new ArrayList<>(List.of(cli, "--cluster", "create"));
      for (PrivateRedis node : nodes) {
        create.add("127.0.0.1:" + node.port());
      }
      create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
      Path log = Files.createTempFile("redis-cluster-create", ".log");
      Process p = new ProcessBuilder(create).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException("redis-cli --cluster create failed: " + Files.readString(log));
      }
      Files.deleteIfExists(log);
      cluster.awaitReady(Duration.ofSeconds(30));
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Waits until every live node sees the cluster as ok and every master has a replica in sync. */
  void awaitReady(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      try {
        if (ready()) {
          return;
        }
      } catch (RuntimeException e) {
        last = e.toString();
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("The private Redis cluster did not become ready " + last);
  }

  private boolean ready() {
    int mastersWithReplica = 0;
    int masters = 0;
    for (PrivateRedis node : nodes) {
      if (!node.isAlive()) {
        continue;
      }
      try (Jedis j = node.admin()) {
        if (!j.clusterInfo().contains("cluster_state:ok")) {
          return false;
        }
        String replication = j.info("replication");
        if (replication.contains("role:master")) {
          masters++;
          if (replication.contains("state=online")) {
            mastersWithReplica++;
          }
        } else if (!replication.contains("master_link_status:up")) {
          return false;
        }
      }
    }
    return masters > 0 && mastersWithReplica == masters;
  }

  /** Waits until every live node sees the cluster as ok again (all slots served) after a master died. */
  void awaitPromotion(int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      boolean ok = true;
      int masters = 0;
      for (PrivateRedis node : nodes) {
        if (!node.isAlive()) {
          continue;
        }
        try (Jedis j = node.admin()) {
          ok &= j.clusterInfo().contains("cluster_state:ok");
          masters += j.info("replication").contains("role:master") ? 1 : 0;
        } catch (RuntimeException e) {
          ok = false;
        }
      }
      if (ok && masters == nodes.size() / 2) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("No replica was promoted within " + seconds + " s");
  }

  /** The nodes a client starts from (all of them). */
  Set<HostAndPort> seeds() {
    Set<HostAndPort> out = new LinkedHashSet<>();
    for (PrivateRedis node : nodes) {
      out.add(new HostAndPort("127.0.0.1", node.port()));
    }
    return out;
  }

  /** The same, as the provider's {@code cluster} property reads it. */
  String seedList() {
    return String.join(",", seeds().stream().map(h -> h.getHost() + ":" + h.getPort()).toList());
  }

  /** A store with its own cluster client under {@code prefix}. */
  RedisIdempotencyStore store(String prefix) {
    return RedisIdempotencyStore.builder().cluster(seeds()).prefix(prefix).build();
  }

  List<PrivateRedis> nodes() {
    return nodes;
  }

  /** The live nodes that are masters now. */
  List<PrivateRedis> masters() {
    List<PrivateRedis> out = new ArrayList<>();
    for (PrivateRedis node : nodes) {
      if (node.isAlive()) {
        try (Jedis j = node.admin()) {
          if (j.info("replication").contains("role:master")) {
            out.add(node);
          }
        }
      }
    }
    return out;
  }

  /** Deletes every key under {@code prefix} on every live master. */
  void deleteAll(String prefix) {
    for (PrivateRedis master : masters()) {
      try (Jedis j = master.admin()) {
        var match = new redis.clients.jedis.params.ScanParams()
            .match((prefix + "*").getBytes(java.nio.charset.StandardCharsets.UTF_8)).count(1000);
        byte[] cursor = redis.clients.jedis.params.ScanParams.SCAN_POINTER_START_BINARY;
        do {
          var page = j.scan(cursor, match);
          for (byte[] key : page.getResult()) {
            j.del(key);
          }
          cursor = page.getCursorAsBytes();
        } while (!java.util.Arrays.equals(cursor, redis.clients.jedis.params.ScanParams.SCAN_POINTER_START_BINARY));
      }
    }
  }

  @Override
  public void close() throws InterruptedException, IOException {
    for (PrivateRedis node : nodes) {
      node.close();
    }
  }
}
