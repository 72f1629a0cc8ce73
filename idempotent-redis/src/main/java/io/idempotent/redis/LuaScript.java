package io.idempotent.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One of the store's Lua scripts, read from the class path once. It runs by {@code EVALSHA}; a server
 * that does not know it yet (fresh start, {@code SCRIPT FLUSH}, failover) answers NOSCRIPT, and then it
 * runs by {@code EVAL}, which also caches it there. Every script touches exactly one key, so on a cluster
 * all of a script's keys are in one hash slot by construction. Immutable and thread-safe.
 */
final class LuaScript {

  static final LuaScript CLAIM = load("claim");
  static final LuaScript FIND = load("find");
  static final LuaScript COMPLETE = load("complete");
  static final LuaScript RELEASE = load("release");
  static final LuaScript RENEW = load("renew");
  static final LuaScript SETTINGS = load("settings");

  private final String name;
  private final byte[] text;
  private final byte[] sha1;

  private LuaScript(String name, byte[] text) {
    this.name = name;
    this.text = text;
    this.sha1 = sha1Hex(text).getBytes(StandardCharsets.US_ASCII);
  }

  private static LuaScript load(String name) {
    String resource = name + ".lua";
    try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Missing script " + resource + " next to " + LuaScript.class.getName());
      }
      return new LuaScript(name, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read script " + resource, e);
    }
  }

  String name() {
    return name;
  }

  /** The same as the bytes {@code EVALSHA} sends. */
  byte[] sha1Bytes() {
    return sha1.clone();
  }

  /** SHA-1 of the script text in hex, as Redis names cached scripts. */
  String sha1() {
    return new String(sha1, StandardCharsets.US_ASCII);
  }

  /**
   * Runs the script on {@code key} with {@code args}: one round trip, two only when the server has to
   * be taught the script. Errors are Jedis's own; the store turns them into its exceptions.
   */
  Object run(UnifiedJedis redis, byte[] key, List<byte[]> args) {
    List<byte[]> keys = List.of(key);
    try {
      return redis.evalsha(sha1, keys, args);
    } catch (JedisNoScriptException e) {
      return redis.eval(text, keys, args);
    }
  }

  /** Runs the script on one given connection (so that a {@code WAIT} after it follows it on the same one). */
  Object run(Connection connection, byte[] key, List<byte[]> args) {
    try {
      return connection.executeCommand(command(Protocol.Command.EVALSHA, sha1, key, args));
    } catch (JedisNoScriptException e) {
      return connection.executeCommand(command(Protocol.Command.EVAL, text, key, args));
    }
  }

  private static CommandArguments command(Protocol.Command command, byte[] script, byte[] key, List<byte[]> args) {
    CommandArguments c = new CommandArguments(command).add(script).add(1).key(key);
    for (byte[] arg : args) {
      c.add(arg);
    }
    return c;
  }

  private static String sha1Hex(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by the Java platform", e);
    }
  }
}
