package io.idempotent.redis;

import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.StoredOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** What the store's Lua scripts answer, read back into the SPI's values. */
final class ScriptReplies {

  private ScriptReplies() {}

  /** {state, fingerprint, owner[, kind, json, failure_type, failure_message, remaining ms]} as the scripts return it. */
  static IdempotencyRecord record(String key, List<?> f) {
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
          new OutcomeFields(Objects.requireNonNullElse(text(f.get(3)), ""), text(f.get(4)), text(f.get(5)),
              text(f.get(6))).toOutcome();
      IdempotencyRecord record = IdempotencyRecord.completed(key, fingerprint, outcome);
      // the remaining TTL by Redis's clock, so a cache in front never keeps a copy longer
      return f.size() > 7 && f.get(7) instanceof Long ms && ms >= 0 ? record.withExpiresIn(Duration.ofMillis(ms)) : record;
    } catch (IllegalArgumentException e) {
      throw malformed("record", e.getMessage());
    }
  }

  static boolean done(Object reply) {
    return reply instanceof Long n && n == 1L;
  }

  static IdempotencyStoreException malformed(String what, @Nullable String detail) {
    return new IdempotencyStoreException(
        "The Redis idempotency store read a malformed " + what + " (" + detail + "); is another program writing"
            + " under this store's prefix?");
  }

  static @Nullable String text(@Nullable Object o) {
    return o == null ? null : new String((byte[]) o, StandardCharsets.UTF_8);
  }

  /** What a claim script's reply means. */
  static ClaimResult claimResult(String key, List<?> reply) {
    String status = String.valueOf(text(reply.get(0)));
    return switch (status) {
      case "ACQUIRED" -> ClaimResult.acquired();
      case "TAKEN_OVER" -> ClaimResult.takenOver();
      case "EXISTING" -> ClaimResult.existing(record(key, reply.subList(1, reply.size())));
      default -> throw malformed("claim", "status " + status);
    };
  }
}
