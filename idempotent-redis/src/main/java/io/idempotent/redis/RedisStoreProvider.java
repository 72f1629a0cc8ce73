package io.idempotent.redis;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.StoreSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.HostAndPort;

/**
 * Provides the Redis store as {@code redis}, on a connection pool built from properties under
 * {@code idempotent.redis.}:
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><td>{@code host}</td><td>default {@code 127.0.0.1}</td></tr>
 *   <tr><td>{@code port}</td><td>default 6379</td></tr>
 *   <tr><td>{@code user}, {@code password}</td><td>credentials (ACL user, password); default none</td></tr>
 *   <tr><td>{@code database}</td><td>logical database index; default 0</td></tr>
 *   <tr><td>{@code prefix}</td><td>namespace of the keys; default {@code idempotent:}</td></tr>
 *   <tr><td>{@code timeout}</td><td>connect and read timeout, ISO-8601; default {@code PT2S}</td></tr>
 *   <tr><td>{@code ssl}</td><td>{@code true} to connect with TLS; default false</td></tr>
 *   <tr><td>{@code pool-size}</td><td>most connections; default 16</td></tr>
 *   <tr><td>{@code max-key-length}</td><td>longest key kept unhashed; default 1024; every instance under
 *       one prefix must have the same (checked against Redis at the first call)</td></tr>
 *   <tr><td>{@code cluster}</td><td>{@code host:port,host:port,...}: some nodes of a Redis Cluster, instead of
 *       {@code host}, {@code port} and {@code database}; default none</td></tr>
 *   <tr><td>{@code wait-replicas}</td><td>replicas each claim and completion waits for ({@code WAIT}); default 0</td></tr>
 *   <tr><td>{@code wait-timeout}</td><td>longest such wait, ISO-8601; default {@code PT1S}</td></tr>
 * </table>
 *
 * The store pings Redis once when it is created, so a wrong address fails at start-up with a message
 * naming it. Priority 50: above the in-memory store, below the table store. Thread-safe.
 */
public final class RedisStoreProvider implements IdempotencyStoreProvider {

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public int priority() {
    return 50;
  }

  @Override
  public IdempotencyStore create(StoreSettings settings) {
    String host = settings.get("host", "127.0.0.1");
    int port = settings.getInt("port", 6379);
    String cluster = settings.get("cluster").orElse(null);
    String address = cluster != null ? "the cluster " + cluster : host + ":" + port;
    RedisIdempotencyStore store;
    try {
      RedisIdempotencyStore.Builder b = RedisIdempotencyStore.builder();
      if (cluster != null) {
        if (settings.get("host").isPresent() || settings.get("port").isPresent()
            || settings.get("database").isPresent()) {
          throw new IllegalArgumentException("cluster excludes host, port and database");
        }
        b.cluster(nodes(cluster));
      } else {
        b.host(host).port(port).database(settings.getInt("database", 0));
      }
      b.waitForReplicas(settings.getInt("wait-replicas", 0), settings.getDuration("wait-timeout", Duration.ofSeconds(1)))
          .timeout(settings.getDuration("timeout", Duration.ofSeconds(2)))
          .ssl(settings.getBoolean("ssl", false))
          .poolSize(settings.getInt("pool-size", RedisIdempotencyStore.DEFAULT_POOL_SIZE))
          .maxKeyLength(settings.getInt("max-key-length", RedisIdempotencyStore.DEFAULT_MAX_KEY_LENGTH));
      settings.get("user").ifPresent(b::user);
      settings.get("password").ifPresent(b::password);
      // get() trims; an explicitly empty prefix is allowed only through the builder
      settings.get("prefix").ifPresent(b::prefix);
      store = b.build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new IdempotencyConfigurationException("Invalid idempotent.redis settings: " + e.getMessage(), e);
    }
    try {
      store.ping();
    } catch (RuntimeException e) {
      store.close();
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new IdempotencyConfigurationException("Cannot connect the redis idempotency store to " + address + " (" + cause.getClass().getSimpleName() + ": " + cause.getMessage() + ")", e);
    }
    return store;
  }

  /** {@code host:port,host:port}: at least one node; IPv6 hosts in brackets ({@code [::1]:7000}). */
  static List<HostAndPort> nodes(String list) {
    List<HostAndPort> out = new ArrayList<>();
    for (String part : list.split(",", 0)) { // a trailing comma is ignored; any other empty node refused
      String node = part.trim();
      int colon = node.lastIndexOf(':');
      if (node.isEmpty() || colon <= 0 || colon == node.length() - 1) {
        throw new IllegalArgumentException("cluster: '" + node + "' is not host:port");
      }
      String host = node.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(node.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("cluster: '" + node + "' has no numeric port");
      }
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("cluster: port of '" + node + "' must be between 1 and 65535");
      }
      out.add(new HostAndPort(host, port));
    }
    return out;
  }

}
