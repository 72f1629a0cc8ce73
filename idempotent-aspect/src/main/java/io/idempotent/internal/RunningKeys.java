package io.idempotent.internal;

import io.idempotent.spi.IdempotencyStore;
import java.util.Arrays;

/**
 * The keys whose methods are running on the current thread, innermost last: a call that finds its own
 * key in progress can tell a re-entrant call, which would wait for itself, from a concurrent duplicate.
 * One small array per thread, reused; entering and leaving allocate nothing once it has grown.
 */
final class RunningKeys {

  private static final ThreadLocal<RunningKeys> CURRENT = ThreadLocal.withInitial(RunningKeys::new);

  private IdempotencyStore[] stores = new IdempotencyStore[4];
  private String[] keys = new String[4];
  private int size;

  private RunningKeys() {}

  /** Marks {@code key} of {@code store} as running on this thread until {@link #exit()}. */
  static RunningKeys enter(IdempotencyStore store, String key) {
    RunningKeys r = CURRENT.get();
    if (r.size == r.keys.length) {
      r.keys = Arrays.copyOf(r.keys, r.size * 2);
      r.stores = Arrays.copyOf(r.stores, r.size * 2);
    }
    r.stores[r.size] = store;
    r.keys[r.size] = key;
    r.size++;
    return r;
  }

  /** Ends the innermost running call of this thread. */
  void exit() {
    size--;
    keys[size] = null;
    stores[size] = null;
  }

  static boolean heldByThisThread(IdempotencyStore store, String key) {
    RunningKeys r = CURRENT.get();
    for (int i = r.size - 1; i >= 0; i--) {
      if (r.stores[i] == store && r.keys[i].equals(key)) {
        return true;
      }
    }
    return false;
  }
}
