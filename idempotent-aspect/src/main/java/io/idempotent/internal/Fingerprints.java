package io.idempotent.internal;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * SHA-256 fingerprints of argument values over their canonical encoding (see {@link CanonicalEncoder}).
 * Thread-safe; each thread reuses its own buffer.
 */
public final class Fingerprints {

  private static final ThreadLocal<ByteSink> BUFFER = ThreadLocal.withInitial(() -> new ByteSink(256));
  private static final CanonicalEncoder ENCODER = new CanonicalEncoder(JacksonResultCodec.canonicalMapper());

  private Fingerprints() {}

  /** The fingerprint of {@code values} taken as one ordered tuple. */
  public static String of(Object[] values) {
    ByteSink sink = BUFFER.get();
    sink.reset();
    sink.put('A').putInt(values.length);
    for (Object v : values) {
      ENCODER.write(sink, v);
    }
    String fp = Hashing.sha256(sink.buffer(), sink.length());
    if (sink.buffer().length > 64 * 1024) {
      BUFFER.remove(); // do not pin a large buffer to the thread
    }
    return fp;
  }
}
