package io.idempotent.redis;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.TimeSource;
import io.idempotent.internal.Hashing;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
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
 * the fields {@code state}, {@code fingerprint}, {@code owner}, {@code lease_ms} and {@code claim_id} while in
 * progress, and {@code state}, {@code fingerprint}, {@code completion_id}, {@code kind}, {@code json},
 * {@code failure_type}, {@code failure_message} once completed. The prefix followed by the byte 0xFF and
 * {@code settings} holds the {@code max-key-length} of the first instance; every instance checks its own
 * against it once, and a mismatch fails the calls. A completed record expires after its TTL. An in-progress record
 * is kept a grace period (ten leases, at most an hour; field {@code grace_ms}) after its lease ends:
 * during it the record counts as expired (absent to {@link #find}), but a new claim can still tell it
 * was a dead owner's and report a takeover, and a late owner whom nobody replaced still completes.
 *
 * <p><b>Connections.</b> A script whose connection breaks before its answer (the server closed it) is sent
 * once more on a fresh connection; the ids make that safe. A claim answered later than its lease is given
 * back and fails closed. On a cluster ({@link Builder#cluster}) every script touches one key, so one slot.
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

  private static final byte[] MAX_KEY_LENGTH_SETTING = "max_key_length".getBytes(StandardCharsets.US_ASCII);

  private final UnifiedJedis redis;
  private final ScriptCalls calls;
  private final boolean ownsClient;
  private final String prefix;
  private final int maxKeyLength;
  private final StoreKeyRules keyRules;
  private final RedisKeys keys;
  private final int waitReplicas;
  private final long waitMillis;
  private final TimeSource time;
  /** Whether this instance's settings were found to agree with those kept in Redis (see settings.lua). */
  private volatile boolean settingsAgree;

  private RedisIdempotencyStore(UnifiedJedis redis, boolean ownsClient, Builder b) {
    this.redis = redis;
    this.calls = new ScriptCalls(redis);
    this.ownsClient = ownsClient;
    this.prefix = b.prefix;
    this.maxKeyLength = b.maxKeyLength;
    this.keyRules = StoreKeyRules.any().maxChars(b.maxKeyLength);
    this.keys = new RedisKeys(b.prefix);
    this.waitReplicas = b.waitReplicas;
    this.waitMillis = b.waitTimeout == null ? 0 : millis(b.waitTimeout, "waitTimeout");
    this.time = b.time;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(owner, "owner");
    long leaseMillis = millis(lease, "lease");
    byte[] redisKey = redisKey(key);
    requireAgreeingSettings();
    List<byte[]> args = List.of(Hashing.exactUtf8(fingerprint), Hashing.exactUtf8(owner), ascii(leaseMillis),
        ascii(keepMillis(leaseMillis)), ascii(graceMillis(leaseMillis)), sendId());
    long sent = time.nanoTime();
    // a claim that times out here may still land when a stalled server wakes; it then refuses retries
    // until its lease ends (README, Durability)
    ScriptCalls.Reply answer = waitReplicas > 0
        ? calls.runAndWait(LuaScript.CLAIM, redisKey, args, waitReplicas, waitMillis)
        : new ScriptCalls.Reply(calls.run(LuaScript.CLAIM, redisKey, args), -1);
    List<?> reply = (List<?>) answer.value();
    String status = text(reply.get(0));
    ClaimResult result = switch (status) {
      case "ACQUIRED" -> ClaimResult.acquired();
      case "TAKEN_OVER" -> ClaimResult.takenOver();
      case "EXISTING" -> ClaimResult.existing(record(key, reply.subList(1, reply.size())));
      default -> throw malformed("claim", "status " + status);
    };
    if (result.claimed()) {
      long tookNanos = time.nanoTime() - sent;
      if (tookNanos >= java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(leaseMillis)) {
        // the answer came after the lease may have ended (a stalled server, a slow network): the key
        // may already be someone else's, so the method must not run on it
        IdempotencyStoreException late = new IdempotencyStoreException("Redis answered the claim after "
            + Duration.ofNanos(tookNanos).toMillis() + " ms, not within its lease of " + leaseMillis
            + " ms; the claim was given back and the method does not run (make the store's timeout shorter"
            + " than the lease)");
        giveBack(redisKey, owner, late);
        throw late;
      }
      if (waitReplicas > 0 && answer.replicas() < waitReplicas) {
        IdempotencyStoreException unreplicated = new IdempotencyStoreException("The claim reached "
            + answer.replicas() + " of the " + waitReplicas + " replicas waited for within " + waitMillis
            + " ms; it was given back and the method does not run");
        giveBack(redisKey, owner, unreplicated);
        throw unreplicated;
      }
    }
    return result;
  }

  /** Releases a claim the caller will not use, if it is (still) there; a failure is added to {@code cause}. */
  private void giveBack(byte[] redisKey, String owner, IdempotencyStoreException cause) {
    try {
      calls.run(LuaScript.RELEASE, redisKey, List.of(Hashing.exactUtf8(owner)));
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * Checks once per store that the settings which decide what Redis key a call's key becomes agree with
   * those of the instances before it (kept in Redis under the prefix): instances that hashed long keys
   * at different lengths would keep one call under two keys and both run it.
   */
  private void requireAgreeingSettings() {
    if (settingsAgree) {
      return;
    }
    byte[] mine = ascii(maxKeyLength);
    Object held = calls.run(LuaScript.SETTINGS, keys.settings(), List.of(MAX_KEY_LENGTH_SETTING, mine));
    String heldText = held instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(held);
    if (!heldText.equals(Long.toString(maxKeyLength))) {
      throw new IdempotencyStoreException("This Redis idempotency store hashes keys longer than " + maxKeyLength
          + " characters, but the instances before it under the prefix '" + prefix + "' hash those longer than "
          + heldText + ": the same call would be kept under two keys. Configure the same max-key-length on"
          + " every instance (after changing it everywhere, delete the settings key, the prefix followed by"
          + " the byte 0xFF and 'settings').");
    }
    settingsAgree = true;
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(outcome, "outcome");
    long ttlMillis = millis(ttl, "ttl");
    OutcomeFields fields = OutcomeFields.of(outcome); // may throw IdempotencyResultException: nothing written
    List<byte[]> args = new ArrayList<>(11);
    args.add(Hashing.exactUtf8(owner));
    args.add(ascii(ttlMillis));
    args.add(sendId());
    field(args, "kind", fields.kind());
    field(args, "json", fields.json());
    field(args, "failure_type", fields.failureType());
    field(args, "failure_message", fields.failureMessage());
    byte[] redisKey = redisKey(key);
    if (waitReplicas > 0) {
      // the outcome is recorded either way; the wait only lets fewer completions be lost in a failover
      return done(calls.runAndWait(LuaScript.COMPLETE, redisKey, args, waitReplicas, waitMillis).value());
    }
    return done(calls.run(LuaScript.COMPLETE, redisKey, args));
  }

  @Override
  public boolean release(String key, String owner) {
    Objects.requireNonNull(owner, "owner");
    return done(calls.run(LuaScript.RELEASE, redisKey(key), List.of(Hashing.exactUtf8(owner))));
  }

  @Override
  public boolean renew(String key, String owner, Duration lease) {
    Objects.requireNonNull(owner, "owner");
    long leaseMillis = millis(lease, "lease");
    return done(calls.run(LuaScript.RENEW, redisKey(key),
        List.of(Hashing.exactUtf8(owner), ascii(leaseMillis), ascii(keepMillis(leaseMillis)),
            ascii(graceMillis(leaseMillis)))));
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    byte[] redisKey = redisKey(key);
    requireAgreeingSettings();
    Object reply = calls.run(LuaScript.FIND, redisKey, List.of());
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
   * Sends {@code PING}: checks that Redis answers, then that this instance's {@code max-key-length} is the
   * one kept in Redis by the instances before it under the same prefix (the first one writes it).
   *
   * @throws IdempotencyStoreException if Redis does not answer, or the settings disagree
   */
  public void ping() {
    try {
      redis.ping();
    } catch (redis.clients.jedis.exceptions.JedisException e) {
      throw new IdempotencyStoreException("Redis does not answer: " + e.getMessage(), e);
    }
    requireAgreeingSettings();
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

  /**
   * A new id for one claim or completion (128 random bits in hex), which the script keeps, so that the same
   * script resent after a dropped connection is told from another caller's.
   */
  private static byte[] sendId() {
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    return HexFormat.of().formatHex(ByteBuffer.allocate(16).putLong(random.nextLong()).putLong(random.nextLong())
        .array()).getBytes(StandardCharsets.US_ASCII);
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
    private boolean hostOrPortSet;
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
    private final LinkedHashSet<HostAndPort> clusterNodes = new LinkedHashSet<>();
    private int waitReplicas;
    private Duration waitTimeout;
    private TimeSource time = TimeSource.system();

    private Builder() {}

    /**
     * Connects to a Redis Cluster through {@code nodes} (some of its nodes; the rest are discovered) with
     * a pool of the store's own per node, instead of one server at {@link #host}/{@link #port}. Every
     * script touches one key, so it runs on the node of that key's hash slot; a client follows slot moves
     * and failovers by itself. Excludes {@link #host}, {@link #port} and {@link #database}.
     */
    public Builder cluster(Collection<HostAndPort> nodes) {
      Objects.requireNonNull(nodes, "nodes");
      if (nodes.isEmpty()) {
        throw new IllegalArgumentException("a cluster needs at least one node");
      }
      nodes.forEach(n -> clusterNodes.add(Objects.requireNonNull(n, "node")));
      return this;
    }

    /**
     * After each claim and completion, waits ({@code WAIT}) until {@code replicas} replicas have the write,
     * at most {@code timeout}. A claim that reaches fewer is given back and fails closed
     * ({@code IdempotencyStoreException}; the method does not run), so a failover to any of them keeps it;
     * a completion that reaches fewer is still recorded. Costs a replication round trip per write, and
     * needs the store's own pool or a {@code RedisClient} or {@code RedisClusterClient}. 0 (the default)
     * waits for none.
     */
    public Builder waitForReplicas(int replicas, Duration timeout) {
      if (replicas < 0) {
        throw new IllegalArgumentException("replicas must not be negative, was " + replicas);
      }
      this.waitReplicas = replicas;
      this.waitTimeout = replicas == 0 ? null : timeout;
      if (replicas > 0) {
        millis(timeout, "timeout");
      }
      return this;
    }

    /** The clock that times a claim's answer against its lease (tests pass their own). */
    Builder time(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time");
      return this;
    }

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
      hostOrPortSet = true;
      return this;
    }

    /** Redis port (default 6379). */
    public Builder port(int port) {
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
      }
      this.port = port;
      connectionSet = true;
      hostOrPortSet = true;
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

    private void requireWaitable(UnifiedJedis client) {
      if (waitReplicas > 0 && !ScriptCalls.canWaitOn(client)) {
        throw new IllegalStateException("waitForReplicas needs a RedisClient or RedisClusterClient, not a "
            + client.getClass().getName());
      }
    }

    /**
     * The store; it opens no connection until its first call (a cluster client reads the cluster's slots
     * when it is built).
     */
    public RedisIdempotencyStore build() {
      if (client != null) {
        if (connectionSet || !clusterNodes.isEmpty()) {
          throw new IllegalStateException("Either pass a client or set connection settings, not both");
        }
        requireWaitable(client);
        return new RedisIdempotencyStore(client, false, this);
      }
      if (!clusterNodes.isEmpty() && (hostOrPortSet || database != 0)) {
        throw new IllegalStateException("A cluster has no host, port or database to set: name its nodes only");
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
      if (!clusterNodes.isEmpty()) {
        RedisClusterClient cluster = RedisClusterClient.builder()
            .nodes(new LinkedHashSet<>(clusterNodes))
            .clientConfig(config.build())
            .poolConfig(pool)
            .build();
        return new RedisIdempotencyStore(cluster, true, this);
      }
      RedisClient pooled = RedisClient.builder()
          .hostAndPort(new HostAndPort(host, port))
          .clientConfig(config.build())
          .poolConfig(pool)
          .build();
      return new RedisIdempotencyStore(pooled, true, this);
    }
  }
}
