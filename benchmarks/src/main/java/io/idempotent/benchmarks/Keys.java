package io.idempotent.benchmarks;

import java.util.UUID;

/**
 * Keys for a benchmark run: fresh ones for first calls (a prefix per run, so that runs never share a
 * key, and a counter) and a fixed ring of keys completed in setup for replays. Not thread-safe: one per
 * benchmark thread.
 */
final class Keys {

  static final int REPLAY_KEYS = 1024;

  private final String prefix = "o" + UUID.randomUUID().toString().substring(0, 8) + "-";
  private final String[] replay = new String[REPLAY_KEYS];
  private long fresh;
  private int next;

  Keys() {
    for (int i = 0; i < REPLAY_KEYS; i++) {
      replay[i] = prefix + "r" + i;
    }
  }

  /** A key never used before in this run. */
  String fresh() {
    return prefix + fresh++;
  }

  /** The keys to complete in setup; {@link #replay()} cycles through them. */
  String[] replayKeys() {
    return replay.clone();
  }

  String replay() {
    return replay[next++ & (REPLAY_KEYS - 1)];
  }
}
