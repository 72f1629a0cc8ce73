package io.idempotent.internal;

import java.util.Arrays;

/** A growable byte buffer for canonical encodings. Not thread-safe. */
final class ByteSink {

  private byte[] buf;
  private int len;

  ByteSink(int capacity) {
    buf = new byte[capacity];
  }

  void reset() {
    len = 0;
  }

  int length() {
    return len;
  }

  byte[] buffer() {
    return buf;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, len);
  }

  private void ensure(int extra) {
    if (len + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
    }
  }

  ByteSink put(char tag) {
    ensure(1);
    buf[len++] = (byte) tag;
    return this;
  }

  ByteSink putChar(char c) {
    ensure(2);
    buf[len++] = (byte) (c >> 8);
    buf[len++] = (byte) c;
    return this;
  }

  ByteSink putInt(int v) {
    ensure(4);
    for (int s = 24; s >= 0; s -= 8) {
      buf[len++] = (byte) (v >> s);
    }
    return this;
  }

  ByteSink putLong(long v) {
    ensure(8);
    for (int s = 56; s >= 0; s -= 8) {
      buf[len++] = (byte) (v >> s);
    }
    return this;
  }

  ByteSink put(byte[] b, int n) {
    ensure(n);
    System.arraycopy(b, 0, buf, len, n);
    len += n;
    return this;
  }
}
