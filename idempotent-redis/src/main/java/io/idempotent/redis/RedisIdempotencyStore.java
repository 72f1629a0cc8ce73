package io.idempotent.redis;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.internal.Hashing;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.UnifiedJedis;

/**
 * A store on Redis: one hash per key, every primitive one atomic Lua script on the server (one round
 * trip), leases and TTLs kept as Redis expiries, so the server's clock is the only clock. A first call
 * costs two round trips (claim, complete), a replay one (the claim returns the stored outcome).
 *
 * <pre>{@code
 * RedisIdempotencyStore store = RedisIdempotencyStore.builder().host("127.0.0.1").port(6379).build();
 * Idempotency.install(IdempotencyConfig.builder().store(store).build());
 * }</pre>
 *
 * <p><b>Record layout.</b> The Redis key is the namespace prefix (default {@value #DEFAULT_PREFIX})
 * followed by the store key as given; the engine hashes keys longer than {@link Builder#maxKeyLength(int)}
 * before they reach the store ({@link #keyRules()}), and the store refuses longer ones. The hash has
 * the fields {@code state}, {@code fingerprint}, {@code owner} and {@code lease_ms} while in progress, and
 * {@code state}, {@code fingerprint}, {@code kind}, {@code json}, {@code failure_type},
 * {@code failure_message} once completed. A completed record expires after its TTL. An in-progress record
 * is kept a grace period (ten leases, at most an hour; field {@code grace_ms}) after its lease ends:
 * during it the record counts as expired (absent to {@link #find}), but a new claim can still tell it
 * was a dead owner's and report a takeover, and a late owner whom nobody replaced still completes.
 *
 * <p><b>Durability.</b> Redis without persistence loses records on restart, failover or eviction; a lost
 * record can let a call run a second time. See the module's README for what fails closed and what does
 * not, and run Redis with {@code maxmemory-policy noeviction}.
 *
 * <p>Thread-safe, as is the pooled {@link UnifiedJedis} it runs on.
 */
public final class RedisIdempotencyStore implements IdempotencyStore, AutoCloseable {

  /** The default namespace prefix of every Redis key. */
  public static final String DEFAULT_PREFIX = "idempotent:";
  /** The default longest key kept unhashed, in characters. */
  public static final int DEFAULT_MAX_KEY_LENGTH = 1024;

  /** The default size of the store's own connection pool. */
  public static final int DEFAULT_POOL_SIZE = 16;
  /** The largest {@link Builder#maxKeyLength(int)}. */
  public static final int MAX_KEY_LENGTH_LIMIT = 65_536;

  private static final long MAX_GRACE_MILLIS = Duration.ofHours(1).toMillis();

  /** Longest lease or TTL kept (about 317 years); longer ones are cut to it. */
  private static final long MAX_MILLIS = 10_000_000_000_000L;

  private final UnifiedJedis redis;
  private final boolean ownsClient;
  private final String prefix;
  private final StoreKeyRules keyRules;
  private final RedisKeys keys;

  private RedisIdempotencyStore(UnifiedJedis redis, boolean ownsClient, String prefix, int maxKeyLength) {
    this.redis = redis;
    this.ownsClient = ownsClient;
    this.prefix = prefix;
    this.keyRules = StoreKeyRules.any().maxChars(maxKeyLength);
    this.keys = new RedisKeys(prefix);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(owner, "owner");
    long leaseMillis = millis(lease, "lease");
    List<?> reply = (List<?>) LuaScript.CLAIM.run(redis, redisKey(key),
        List.of(Hashing.exactUtf8(fingerprint), Hashing.exactUtf8(owner), ascii(leaseMillis),
            ascii(keepMillis(leaseMillis)), ascii(graceMillis(leaseMillis))));
    String status = text(reply.get(0));
    return switch (status) {
      case "ACQUIRED" -> ClaimResult.acquired();
      case "TAKEN_OVER" -> ClaimResult.takenOver();
      case "EXISTING" -> ClaimResult.existing(record(key, reply.subList(1, reply.size())));
      default -> throw malformed("claim", "status " + status);
    };
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(outcome, "outcome");
    long ttlMillis = millis(ttl, "ttl");
    OutcomeFields fields = OutcomeFields.of(outcome); // may throw IdempotencyResultException: nothing written
    List<byte[]> args = new ArrayList<>(10);
    args.add(Hashing.exactUtf8(owner));
    args.add(ascii(ttlMillis));
    field(args, "kind", fields.kind());
    field(args, "json", fields.json());
    field(args, "failure_type", fields.failureType());
    field(args, "failure_message", fields.failureMessage());
    return done(LuaScript.COMPLETE.run(redis, redisKey(key), args));
  }

  @Override
  public boolean release(String key, String owner) {
    Objects.requireNonNull(owner, "owner");
    return done(LuaScript.RELEASE.run(redis, redisKey(key), List.of(Hashing.exactUtf8(owner))));
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    Objects.requireNonNull(owner, "owner");
    long leaseMillis = millis(lease, "lease");
    return done(LuaScript.RENEW.run(redis, redisKey(key),
        List.of(Hashing.exactUtf8(owner), ascii(leaseMillis), ascii(keepMillis(leaseMillis)),
            ascii(graceMillis(leaseMillis)))));
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    Object reply = LuaScript.FIND.run(redis, redisKey(key), List.of());
    return reply == null ? Optional.empty() : Optional.of(record(key, (List<?>) reply));
  }

  /**
   * Returns 0: Redis deletes expired records by itself (and an in-progress record one lease after its
   * lease ended), so there is nothing to purge and no key space to scan.
   */
  @Override
  public int purgeExpired(int maxRecords) {
    return 0;
  }

  @Override
  public StoreKeyRules keyRules() {
    return keyRules;
  }

  /** The namespace prefix of this store's Redis keys. */
  public String prefix() {
    return prefix;
  }

  /**
   * Sends {@code PING}: checks that Redis answers.
   *
   * @throws IdempotencyStoreException if it does not
   */
  public void ping() {
    try {
      redis.ping();
    } catch (redis.clients.jedis.exceptions.JedisException e) {
      throw new IdempotencyStoreException("Redis does not answer: " + e.getMessage(), e);
    }
  }

  /** The Redis key of a store key (this package's tests look at Redis directly). */
  byte[] redisKey(String key) {
    return keys.of(keyRules.requireAccepted(key));
  }

  /** Closes the connection pool if this store opened it; a client passed to the builder is left open. */
  @Override
  public void close() {
    if (ownsClient) {
      redis.close();
    }
  }

  @Override
  public String toString() {
    return "RedisIdempotencyStore[prefix=" + prefix + "]";
  }

  /** {state, fingerprint, owner[, kind, json, failure_type, failure_message, remaining ms]} as the scripts return it. */
  private static IdempotencyRecord record(String key, List<?> f) {
    String state = text(f.get(0));
    String fingerprint = Objects.requireNonNullElse(text(f.get(1)), "");
    if ("IN_PROGRESS".equals(state)) {
      return IdempotencyRecord.inProgress(key, fingerprint, text(f.get(2)));
    }
    if (!"COMPLETED".equals(state) || f.size() < 7) {
      throw malformed("record", "state " + state);
    }
    try {
      StoredOutcome outcome =
          new OutcomeFields(text(f.get(3)), text(f.get(4)), text(f.get(5)), text(f.get(6))).toOutcome();
      IdempotencyRecord record = IdempotencyRecord.completed(key, fingerprint, outcome);
      // the remaining TTL by Redis's clock, so a cache in front never keeps a copy longer
      return f.size() > 7 && f.get(7) instanceof Long ms && ms >= 0 ? record.withExpiresIn(Duration.ofMillis(ms)) : record;
    } catch (IllegalArgumentException e) {
      throw malformed("record", e.getMessage());
    }
  }

  /** Adds the hash field {@code name} with {@code value} to {@code args}, unless the value is null. */
  private static void field(List<byte[]> args, String name, String value) {
    if (value != null) {
      args.add(name.getBytes(StandardCharsets.US_ASCII));
      args.add(value.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static boolean done(Object reply) {
    return reply instanceof Long n && n == 1L;
  }

  private static IdempotencyStoreException malformed(String what, String detail) {
    return new IdempotencyStoreException(
        "The Redis idempotency store read a malformed " + what + " (" + detail + "); is another program writing"
            + " under this store's prefix?");
  }

  /** A positive duration in whole milliseconds, rounded up, at most {@link #MAX_MILLIS}. */
  static long millis(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + d);
    }
    if (d.getSeconds() >= MAX_MILLIS / 1000) {
      return MAX_MILLIS;
    }
    long ms = d.toMillis();
    return d.equals(Duration.ofMillis(ms)) ? ms : ms + 1;
  }

  /** How long an in-progress hash is kept: its lease and one more, to tell a takeover from a fresh claim. */
  /**
   * How long an in-progress hash is kept after its lease: ten leases, at most an hour, so a late owner
   * whom nobody replaced still completes, as the SPI promises, and a takeover is told from a fresh
   * claim, while unfinished claims and unused one-time tokens cost memory in proportion to their own
   * lifetimes. During it the record counts as expired (see claim.lua).
   */
  static long graceMillis(long leaseMillis) {
    long lease = Math.min(leaseMillis, MAX_GRACE_MILLIS);
    return Math.max(lease, Math.min(10 * lease, MAX_GRACE_MILLIS));
  }

  private static long keepMillis(long leaseMillis) {
    return leaseMillis + graceMillis(leaseMillis);
  }

  private static String text(Object o) {
    return o == null ? null : new String((byte[]) o, StandardCharsets.UTF_8);
  }

  private static byte[] ascii(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Builds a {@link RedisIdempotencyStore}, either on a client the application already has ({@link
   * #client(UnifiedJedis)}: a {@code RedisClient}, a {@code RedisClusterClient}, ...) or on a pool of its own
   * from host, port and credentials. Not thread-safe.
   */
  public static final class Builder {
    private UnifiedJedis client;
    private boolean connectionSet;
    private String host = "127.0.0.1";
    private int port = 6379;
    private String user;
    private String password;
    private int database;
    private Duration timeout = Duration.ofSeconds(2);
    private boolean ssl;
    private int poolSize = DEFAULT_POOL_SIZE;
    private String prefix = DEFAULT_PREFIX;
    private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;

    private Builder() {}

    /**
     * Uses {@code client}, which the application keeps and closes; excludes the connection settings. The
     * client must be safe for concurrent use (a pooled or cluster client, not one single connection).
     */
    public Builder client(UnifiedJedis client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** Redis host for a pool of the store's own (default 127.0.0.1). */
    public Builder host(String host) {
      Objects.requireNonNull(host, "host");
      if (host.isBlank()) {
        throw new IllegalArgumentException("host must not be blank");
      }
      this.host = host.trim();
      connectionSet = true;
      return this;
    }

    /** Redis port (default 6379). */
    public Builder port(int port) {
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
      }
      this.port = port;
      connectionSet = true;
      return this;
    }

    /** ACL user name (Redis 6+); null for the default user. */
    public Builder user(String user) {
      this.user = user;
      connectionSet = true;
      return this;
    }

    /** Password; null for none. */
    public Builder password(String password) {
      this.password = password;
      connectionSet = true;
      return this;
    }

    /** Logical database index (default 0). */
    public Builder database(int database) {
      if (database < 0) {
        throw new IllegalArgumentException("database must not be negative, was " + database);
      }
      this.database = database;
      connectionSet = true;
      return this;
    }

    /** Connect and read timeout (default 2 s). */
    public Builder timeout(Duration timeout) {
      long ms = millis(timeout, "timeout");
      if (ms > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("timeout is too long: " + timeout);
      }
      this.timeout = timeout;
      connectionSet = true;
      return this;
    }

    /** Whether to connect with TLS (default false). */
    public Builder ssl(boolean ssl) {
      this.ssl = ssl;
      connectionSet = true;
      return this;
    }

    /** Most connections the store's own pool opens (default {@value #DEFAULT_POOL_SIZE}). */
    public Builder poolSize(int poolSize) {
      if (poolSize < 1) {
        throw new IllegalArgumentException("poolSize must be at least 1, was " + poolSize);
      }
      this.poolSize = poolSize;
      connectionSet = true;
      return this;
    }

    /** Namespace prefix of every Redis key (default {@value RedisIdempotencyStore#DEFAULT_PREFIX}). */
    public Builder prefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /**
     * Longest key kept, in characters (default 1024): the engine hashes longer keys before they reach the
     * store, and the store refuses longer keys from other callers ({@link RedisIdempotencyStore#keyRules()}).
     */
    public Builder maxKeyLength(int maxKeyLength) {
      if (maxKeyLength < StoreKeyRules.MIN_LENGTH || maxKeyLength > MAX_KEY_LENGTH_LIMIT) {
        throw new IllegalArgumentException(
            "maxKeyLength must be between " + StoreKeyRules.MIN_LENGTH + " and " + MAX_KEY_LENGTH_LIMIT + ", was "
                + maxKeyLength);
      }
      this.maxKeyLength = maxKeyLength;
      return this;
    }

    /** The store; it opens no connection until its first call. */
    public RedisIdempotencyStore build() {
      if (client != null) {
        if (connectionSet) {
          throw new IllegalStateException("Either pass a client or set connection settings, not both");
        }
        return new RedisIdempotencyStore(client, false, prefix, maxKeyLength);
      }
      DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
          .timeoutMillis((int) millis(timeout, "timeout"))
          .database(database)
          .clientName("idempotent");
      if (ssl) {
        // TLS with the JVM's trust store, checking the server's certificate and host name
        config.sslOptions(SslOptions.defaults());
      }
      if (user != null && !user.isEmpty()) {
        config.user(user);
      }
      if (password != null && !password.isEmpty()) {
        config.password(password);
      }
      ConnectionPoolConfig pool = new ConnectionPoolConfig();
      pool.setMaxTotal(poolSize);
      pool.setMaxIdle(poolSize);
      pool.setMaxWait(timeout);
      pool.setJmxEnabled(false);
      RedisClient pooled = RedisClient.builder()
          .hostAndPort(new HostAndPort(host, port))
          .clientConfig(config.build())
          .poolConfig(pool)
          .build();
      return new RedisIdempotencyStore(pooled, true, prefix, maxKeyLength);
    }
  }
}
