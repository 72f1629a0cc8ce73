package io.idempotent.redis;

import static io.idempotent.redis.ScriptArguments.addLease;
import static io.idempotent.redis.ScriptArguments.completionArgs;
import static io.idempotent.redis.ScriptArguments.millis;
import static io.idempotent.redis.ScriptArguments.sendId;
import static io.idempotent.redis.ScriptReplies.claimResult;
import static io.idempotent.redis.ScriptReplies.done;
import static io.idempotent.redis.ScriptReplies.record;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.TimeSource;
import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.StoreKeyRules;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
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
public final class RedisIdempotencyStore implements IdempotencyStore, KeyLimits, BatchClaims {

  /** The default namespace prefix of every Redis key. */
  public static final String DEFAULT_PREFIX = "idempotent:";
  /** The default longest key kept unhashed, in characters. */
  public static final int DEFAULT_MAX_KEY_LENGTH = 1024;

  /** The default size of the store's own connection pool. */
  public static final int DEFAULT_POOL_SIZE = 16;
  /** The largest {@link Builder#maxKeyLength(int)}. */
  public static final int MAX_KEY_LENGTH_LIMIT = 65_536;

  private final UnifiedJedis redis;
  private final ScriptCalls calls;
  private final boolean ownsClient;
  private final String prefix;
  private final StoreKeyRules keyRules;
  private final RedisKeys keys;
  private final int waitReplicas;
  private final long waitMillis;
  private final TimeSource time;
  private final SharedSettings settings;
  private final RedisBatches batches;

  private RedisIdempotencyStore(UnifiedJedis redis, boolean ownsClient, Builder b) {
    this.redis = redis;
    this.calls = new ScriptCalls(redis);
    this.ownsClient = ownsClient;
    this.prefix = b.prefix;
    this.keyRules = StoreKeyRules.any().maxChars(b.maxKeyLength);
    this.keys = new RedisKeys(b.prefix);
    this.settings = new SharedSettings(calls, keys, b.prefix, b.maxKeyLength);
    this.waitReplicas = b.waitReplicas;
    this.waitMillis = b.waitTimeout == null ? 0 : millis(b.waitTimeout, "waitTimeout");
    this.time = b.time;
    this.batches = new RedisBatches(this, keys, keyRules, calls, settings, waitReplicas, time);
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
    settings.requireAgreeing();
    List<byte[]> args = new ArrayList<>(6);
    args.add(Hashing.exactUtf8(fingerprint));
    args.add(Hashing.exactUtf8(owner));
    addLease(args, leaseMillis);
    args.add(sendId());
    long sent = time.nanoTime();
    // a claim that times out here may still land when a stalled server wakes; it then refuses retries
    // until its lease ends (README, Durability)
    ScriptCalls.Reply answer = waitReplicas > 0
        ? calls.runAndWait(LuaScript.CLAIM, redisKey, args, waitReplicas, waitMillis)
        : new ScriptCalls.Reply(calls.run(LuaScript.CLAIM, redisKey, args), -1);
    ClaimResult result = claimResult(key, (List<?>) answer.value());
    if (result.claimed()) {
      long tookNanos = time.nanoTime() - sent;
      if (tookNanos >= java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(leaseMillis)) {
        // the answer came after the lease may have ended (a stalled server, a slow network): the key
        // may already be someone else's, so the method must not run on it
        IdempotencyStoreException late = new IdempotencyStoreException("Redis answered the claim after "
            + Duration.ofNanos(tookNanos).toMillis() + " ms, not within its lease of " + leaseMillis
            + " ms; the claim was given back and the method does not run (make the store's timeout shorter"
            + " than the lease)");
        calls.giveBack(redisKey, owner, late);
        throw late;
      }
      if (waitReplicas > 0 && answer.replicas() < waitReplicas) {
        IdempotencyStoreException unreplicated = new IdempotencyStoreException("The claim reached "
            + answer.replicas() + " of the " + waitReplicas + " replicas waited for within " + waitMillis
            + " ms; it was given back and the method does not run");
        calls.giveBack(redisKey, owner, unreplicated);
        throw unreplicated;
      }
    }
    return result;
  }

  /** See {@link RedisBatches#claimAll}. */
  @Override
  public List<ClaimResult> claimAll(List<BatchClaims.Claim> claims, String owner, Duration lease) {
    return batches.claimAll(claims, owner, lease);
  }

  /** See {@link RedisBatches#completeAll}. */
  @Override
  public boolean[] completeAll(List<BatchClaims.Completion> completions, String owner, Duration ttl) {
    return batches.completeAll(completions, owner, ttl);
  }

  @Override
  public boolean complete(String key, String owner, StoredOutcome outcome, Duration ttl) {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(outcome, "outcome");
    long ttlMillis = millis(ttl, "ttl");
    // may throw IdempotencyResultException: nothing written
    List<byte[]> args = completionArgs(owner, ttlMillis, OutcomeFields.of(outcome));
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
    List<byte[]> args = new ArrayList<>(4);
    args.add(Hashing.exactUtf8(owner));
    addLease(args, leaseMillis);
    return done(calls.run(LuaScript.RENEW, redisKey(key), args));
  }

  @Override
  public Optional<IdempotencyRecord> find(String key) {
    byte[] redisKey = redisKey(key);
    settings.requireAgreeing();
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
    settings.requireAgreeing();
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

  /**
   * Builds a {@link RedisIdempotencyStore}, either on a client the application already has ({@link
   * #client(UnifiedJedis)}: a {@code RedisClient}, a {@code RedisClusterClient}, ...) or on a pool of its own
   * from host, port and credentials. Not thread-safe.
   */
  public static final class Builder {
    private @Nullable UnifiedJedis client;
    private boolean connectionSet;
    private boolean hostOrPortSet;
    private String host = "127.0.0.1";
    private int port = 6379;
    private @Nullable String user;
    private @Nullable String password;
    private int database;
    private Duration timeout = Duration.ofSeconds(2);
    private boolean ssl;
    private int poolSize = DEFAULT_POOL_SIZE;
    private String prefix = DEFAULT_PREFIX;
    private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;
    private final LinkedHashSet<HostAndPort> clusterNodes = new LinkedHashSet<>();
    private int waitReplicas;
    private @Nullable Duration waitTimeout;
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
