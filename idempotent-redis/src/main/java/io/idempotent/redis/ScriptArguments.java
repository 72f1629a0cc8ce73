package io.idempotent.redis;

import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.OutcomeFields;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** The arguments the store passes its Lua scripts: durations in milliseconds, ids, hash fields. */
final class ScriptArguments {

  /** Longest lease or TTL kept (about 317 years); longer ones are cut to it. */
  private static final long MAX_MILLIS = 10_000_000_000_000L;

  private static final long MAX_GRACE_MILLIS = Duration.ofHours(1).toMillis();

  private ScriptArguments() {}

  /** Adds the hash field {@code name} with {@code value} to {@code args}, unless the value is null. */
  static void field(List<byte[]> args, String name, @Nullable String value) {
    if (value != null) {
      args.add(name.getBytes(StandardCharsets.US_ASCII));
      args.add(value.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A positive duration in whole milliseconds, rounded up, at most {@link #MAX_MILLIS}. */
  static long millis(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, was " + d);
    }
    if (d.toSeconds() >= MAX_MILLIS / 1000) {
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

  /** Adds a lease's three arguments: its length, how long the hash is kept, and the grace period within that. */
  static void addLease(List<byte[]> args, long leaseMillis) {
    args.add(ascii(leaseMillis));
    args.add(ascii(keepMillis(leaseMillis)));
    args.add(ascii(graceMillis(leaseMillis)));
  }

  private static long keepMillis(long leaseMillis) {
    return leaseMillis + graceMillis(leaseMillis);
  }

  /**
   * A new id for one claim or completion (128 random bits in hex), which the script keeps, so that the same
   * script resent after a dropped connection is told from another caller's.
   */
  static byte[] sendId() {
    java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
    return HexFormat.of().formatHex(ByteBuffer.allocate(16).putLong(random.nextLong()).putLong(random.nextLong())
        .array()).getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] ascii(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  /** The arguments of complete.lua: owner, TTL, a new completion id, then the outcome's fields. */
  static List<byte[]> completionArgs(String owner, long ttlMillis, OutcomeFields fields) {
    List<byte[]> args = new ArrayList<>(11);
    args.add(Hashing.exactUtf8(owner));
    args.add(ascii(ttlMillis));
    args.add(sendId());
    field(args, "kind", fields.kind());
    field(args, "json", fields.json());
    field(args, "failure_type", fields.failureType());
    field(args, "failure_message", fields.failureMessage());
    return args;
  }
}
