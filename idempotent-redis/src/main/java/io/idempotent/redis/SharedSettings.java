package io.idempotent.redis;

import io.idempotent.IdempotencyStoreException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The settings that decide what Redis key a call's key becomes, which every instance under one prefix must
 * share: kept in Redis by the first instance (see settings.lua), checked once by each one after it.
 * Thread-safe.
 */
final class SharedSettings {

  private static final byte[] MAX_KEY_LENGTH_SETTING = "max_key_length".getBytes(StandardCharsets.US_ASCII);

  private final ScriptCalls calls;
  private final RedisKeys keys;
  private final String prefix;
  private final int maxKeyLength;
  /** Whether this instance's settings were found to agree with those kept in Redis. */
  private volatile boolean agree;

  SharedSettings(ScriptCalls calls, RedisKeys keys, String prefix, int maxKeyLength) {
    this.calls = calls;
    this.keys = keys;
    this.prefix = prefix;
    this.maxKeyLength = maxKeyLength;
  }

  /**
   * Checks once per store that this instance's settings agree with those of the instances before it:
   * instances that hashed long keys at different lengths would keep one call under two keys and both run it.
   */
  void requireAgreeing() {
    if (agree) {
      return;
    }
    byte[] mine = ScriptArguments.ascii(maxKeyLength);
    Object held = calls.run(LuaScript.SETTINGS, keys.settings(), List.of(MAX_KEY_LENGTH_SETTING, mine));
    String heldText = held instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(held);
    if (!heldText.equals(Long.toString(maxKeyLength))) {
      throw new IdempotencyStoreException("This Redis idempotency store hashes keys longer than " + maxKeyLength
          + " characters, but the instances before it under the prefix '" + prefix + "' hash those longer than "
          + heldText + ": the same call would be kept under two keys. Configure the same max-key-length on"
          + " every instance (after changing it everywhere, delete the settings key, the prefix followed by"
          + " the byte 0xFF and 'settings').");
    }
    agree = true;
  }
}
