package io.idempotent.redis;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.internal.text.Hashing;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Runs the store's scripts on its client, and decides what a failure means.
 *
 * <p>A connection that breaks before its answer came (the server closed it: {@code CLIENT KILL}, its
 * idle {@code timeout}, a restart) says nothing about whether the script ran, so every script is safe to
 * run twice for the same owner (see claim.lua, complete.lua) and is sent once more, on a fresh connection:
 * the idle connections of the pool are dropped first, since what closed one has usually closed them all.
 * A read that times out is not resent: the server may still be running it, and the caller's wait stays
 * bounded by one timeout. Thread-safe.
 */
final class ScriptCalls {

  /** The answer of a script, and how many replicas acknowledged its write (-1 when not asked). */
  record Reply(Object value, long replicas) {}

  private final UnifiedJedis redis;

  ScriptCalls(UnifiedJedis redis) {
    this.redis = redis;
  }

  /** Runs {@code script}; one more time on a fresh connection if the connection broke. */
  Object run(LuaScript script, byte[] key, List<byte[]> args) {
    try {
      try {
        return script.run(redis, key, args);
      } catch (JedisConnectionException e) {
        if (timedOut(e)) {
          throw e;
        }
        dropIdleConnections();
        return script.run(redis, key, args);
      }
    } catch (JedisException e) {
      throw failed(script, e);
    }
  }

  /**
   * Runs {@code script} once per key, {@code keys.get(i)} with {@code args.get(i)}, pipelined: one round trip
   * (per server, on a cluster). The scripts are independent, each atomic on its key. Resent once on a fresh
   * connection if the connection broke, as {@link #run}; a key whose server did not know the script yet runs
   * it again alone ({@code EVAL}).
   */
  List<Object> runAll(LuaScript script, List<byte[]> keys, List<List<byte[]>> args) {
    try {
      try {
        return pipelined(script, keys, args);
      } catch (JedisConnectionException e) {
        if (timedOut(e)) {
          throw e;
        }
        dropIdleConnections();
        return pipelined(script, keys, args);
      }
    } catch (JedisException e) {
      throw failed(script, e);
    }
  }

  private List<Object> pipelined(LuaScript script, List<byte[]> keys, List<List<byte[]>> args) {
    List<Response<Object>> responses = new ArrayList<>(keys.size());
    try (AbstractPipeline pipeline = redis.pipelined()) {
      for (int i = 0; i < keys.size(); i++) {
        responses.add(pipeline.evalsha(script.sha1Bytes(), List.of(keys.get(i)), args.get(i)));
      }
      pipeline.sync();
    }
    List<Object> replies = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      Object reply;
      try {
        reply = responses.get(i).get();
      } catch (JedisNoScriptException e) {
        reply = script.run(redis, keys.get(i), args.get(i)); // taught to the server, then run
      }
      replies.add(reply);
    }
    return replies;
  }

  /**
   * Runs {@code script}, then {@code WAIT replicas timeoutMillis} on the same connection: how many
   * replicas have the write. Resent once on a fresh connection, as {@link #run}.
   */
  Reply runAndWait(LuaScript script, byte[] key, List<byte[]> args, int replicas, long timeoutMillis) {
    try {
      try {
        return runAndWaitOnce(script, key, args, replicas, timeoutMillis);
      } catch (JedisConnectionException | JedisRedirectionException e) {
        if (timedOut(e)) {
          throw e;
        }
        // on a cluster, the slot may have moved or its master failed over: read the slots again
        dropIdleConnections();
        if (redis instanceof RedisClusterClient cluster) {
          cluster.refreshClusterTopology();
        }
        return runAndWaitOnce(script, key, args, replicas, timeoutMillis);
      }
    } catch (JedisException e) {
      throw failed(script, e);
    }
  }

  private Reply runAndWaitOnce(LuaScript script, byte[] key, List<byte[]> args, int replicas, long timeoutMillis) {
    try (Connection connection = connectionFor(key)) {
      Object value = script.run(connection, key, args);
      Object acked = connection.executeCommand(
          new CommandArguments(Protocol.Command.WAIT).add(replicas).add(timeoutMillis));
      return new Reply(value, acked instanceof Long n ? n : 0L);
    }
  }

  /** A connection to the server that holds {@code key}; closing it gives it back. */
  private Connection connectionFor(byte[] key) {
    if (redis instanceof RedisClusterClient cluster) {
      return cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(key));
    }
    if (redis instanceof RedisClient pooled) {
      return pooled.getPool().getResource();
    }
    throw new IllegalStateException("waiting for replicas needs a RedisClient or a RedisClusterClient, not a "
        + redis.getClass().getName());
  }

  /** Whether the connection the store would run on can be told apart: waiting for replicas needs one. */
  static boolean canWaitOn(UnifiedJedis client) {
    return client instanceof RedisClusterClient || client instanceof RedisClient;
  }

  private void dropIdleConnections() {
    try {
      if (redis instanceof RedisClient pooled) {
        pooled.getPool().clear();
      } else if (redis instanceof RedisClusterClient cluster) {
        cluster.getClusterNodes().values().forEach(pool -> pool.clear());
      }
    } catch (RuntimeException ignored) {
      // only an optimisation of the retry: a stale connection it misses fails that retry, closed
    }
  }

  /** Whether {@code e} is a read or connect that timed out (as opposed to a connection the server closed). */
  static boolean timedOut(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  private static IdempotencyStoreException failed(LuaScript script, JedisException e) {
    return new IdempotencyStoreException(
        "The Redis idempotency store failed to run its " + script.name() + " script: " + e.getMessage(), e);
  }

  /** Releases a claim the caller will not use, if it is (still) there; a failure is added to {@code cause}. */
  void giveBack(byte[] redisKey, String owner, IdempotencyStoreException cause) {
    try {
      run(LuaScript.RELEASE, redisKey, List.of(Hashing.exactUtf8(owner)));
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }
}
