package io.idempotent.internal;

import io.idempotent.internal.text.Hashing;

/**
 * SHA-256 fingerprints of argument values over their canonical encoding (see {@link CanonicalEncoder}).
 * Thread-safe; each thread reuses its own buffer and encoder.
 */
public final class Fingerprints {

  private static final ThreadLocal<ByteSink> BUFFER = ThreadLocal.withInitial(() -> new ByteSink(256));
  private static final ThreadLocal<CanonicalEncoder> ENCODER = ThreadLocal.withInitial(CanonicalEncoder::new);

  private Fingerprints() {}

  /**
   * The fingerprint of {@code values} taken as one ordered tuple.
   *
   * @throws FingerprintException when a value cannot be fingerprinted; {@link FingerprintException#isAbout}
   *     is true for this very array
   */
  public static String of(Object[] values) {
    ByteSink sink = BUFFER.get();
    CanonicalEncoder encoder = ENCODER.get();
    sink.reset();
    sink.put('A').putInt(values.length);
    try {
      for (int i = 0; i < values.length; i++) {
        try {
          encoder.write(sink, values[i]);
        } catch (FingerprintException e) {
          throw e.ofArgument(values, i);
        }
      }
      return Hashing.sha256(sink.buffer(), sink.length());
    } finally {
      if (sink.buffer().length > 64 * 1024) {
        BUFFER.remove(); // do not pin a large buffer to the thread
      }
    }
  }
}
