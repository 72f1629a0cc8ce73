package io.idempotent.spi;

import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of a completed call. In-memory stores keep it as is; stores that persist call {@link
 * #json()}. What a store is given never changes: the engine passes a {@link #reference()} only for a
 * value of a type that cannot change (a string, a number, an enum, a java.time value, a record of such),
 * whose JSON it encodes lazily as the method's declared return type; any other value arrives already
 * encoded, with no reference, and each replay decodes a copy of its own. An outcome read back from
 * storage has only its JSON. Immutable and thread-safe.
 */
public final class StoredOutcome {

  /** The kind of outcome. */
  public enum Kind {
    /** The method returned a non-null value. */
    VALUE,
    /** The method returned null or was void. */
    NULL,
    /**
     * The method threw an exception declared final; its type and message are kept, and its state (its
     * own fields, full message and cause description) as JSON in {@link #json()} for stores that persist.
     */
    FAILURE
  }

  private static final StoredOutcome NULL = new StoredOutcome(Kind.NULL, null, false, null, null, null, null);

  private final Kind kind;
  private final @Nullable Object reference;
  private final boolean hasReference;
  private final @Nullable Supplier<String> encoder;
  private volatile @Nullable String json;
  private final @Nullable String failureType;
  private final @Nullable String failureMessage;

  private StoredOutcome(
      Kind kind,
      @Nullable Object reference,
      boolean hasReference,
      @Nullable String json,
      @Nullable Supplier<String> encoder,
      @Nullable String failureType,
      @Nullable String failureMessage) {
    this.kind = kind;
    this.reference = reference;
    this.hasReference = hasReference;
    this.json = json;
    this.encoder = encoder;
    this.failureType = failureType;
    this.failureMessage = failureMessage;
  }

  /**
   * A value returned by the method, kept by reference; {@code encoder} produces its JSON when a store
   * asks for it. Only for values that cannot change: a replay may return this very object.
   */
  public static StoredOutcome value(Object value, Supplier<String> encoder) {
    Objects.requireNonNull(value, "value");
    return new StoredOutcome(Kind.VALUE, value, true, null, Objects.requireNonNull(encoder), null, null);
  }

  /** A value as JSON: read back from storage, or encoded when the call completed. */
  public static StoredOutcome valueJson(String json) {
    return new StoredOutcome(Kind.VALUE, null, false, Objects.requireNonNull(json, "json"), null, null, null);
  }

  /** A null result or a void method. */
  public static StoredOutcome nullValue() {
    return NULL;
  }

  /** A final failure: the exception's class name and message (message may be null). */
  public static StoredOutcome failure(String type, @Nullable String message) {
    return failure(type, message, null);
  }

  /**
   * A final failure with its recorded state: JSON that a persistent store keeps alongside the type and
   * message (in the same place as a value's JSON) and gives back through {@link #json()}; may be null.
   */
  public static StoredOutcome failure(String type, @Nullable String message, @Nullable String stateJson) {
    return new StoredOutcome(
        Kind.FAILURE, null, false, stateJson, null, Objects.requireNonNull(type, "type"), message);
  }

  public Kind kind() {
    return kind;
  }

  /**
   * Whether the original object is held: only for values that cannot change, and never for outcomes read
   * back from storage.
   */
  public boolean hasReference() {
    return hasReference;
  }

  /** The original returned object; only meaningful when {@link #hasReference()}. */
  public @Nullable Object reference() {
    return reference;
  }

  /**
   * The JSON of a {@link Kind#VALUE} outcome, encoded on first call as the declared return type; for a
   * {@link Kind#FAILURE}, the exception's recorded state (null when none was recorded).
   *
   * @throws io.idempotent.IdempotencyResultException if the value cannot be encoded
   */
  public @Nullable String json() {
    String j = json;
    if (j == null && encoder != null) {
      j = encoder.get();
      json = j;
    }
    return j;
  }

  /** Class name of a {@link Kind#FAILURE} outcome's exception. */
  public @Nullable String failureType() {
    return failureType;
  }

  /** Message of a {@link Kind#FAILURE} outcome's exception; may be null. */
  public @Nullable String failureMessage() {
    return failureMessage;
  }

  @Override
  public String toString() {
    return "StoredOutcome[" + kind + (failureType != null ? " " + failureType : "") + "]";
  }
}
