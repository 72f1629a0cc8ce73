package io.idempotent.internal;

import io.idempotent.IdempotencyConfig;
import io.idempotent.spi.ResultCodec;

/** Holds the engine the woven aspect uses; configured from the environment on first use unless installed. */
public final class GlobalEngine {
  private static final System.Logger LOG = System.getLogger("io.idempotent");


  private static volatile IdempotencyEngine engine;
  /** Whether {@link #engine}'s stores were built here from properties, and so are ours to close. */
  private static boolean ownsStores;

  private GlobalEngine() {}

  public static IdempotencyEngine get() {
    IdempotencyEngine e = engine;
    if (e == null) {
      synchronized (GlobalEngine.class) {
        e = engine;
        if (e == null) {
          e = new IdempotencyEngine(EnvironmentConfiguration.load());
          engine = e;
          ownsStores = true;
        }
      }
    }
    return e;
  }

  /** The configuration of the engine in use, or null while none is configured yet (none is made here). */
  public static IdempotencyConfig installedConfig() {
    IdempotencyEngine e = engine;
    return e == null ? null : e.config();
  }

  /** The codec of the engine in use, or the default codec while none is configured yet. */
  public static ResultCodec installedCodec() {
    IdempotencyEngine e = engine;
    return e != null ? e.config().codec() : JacksonResultCodec.shared();
  }

  public static synchronized IdempotencyEngine install(IdempotencyConfig config) {
    IdempotencyEngine e = new IdempotencyEngine(config);
    closeOwnedStores();
    engine = e;
    return e;
  }

  public static synchronized void reset() {
    closeOwnedStores();
    engine = null;
  }

  /** Resets only while {@code expected} is the engine in use; returns whether it was. */
  public static synchronized boolean resetIf(IdempotencyEngine expected) {
    if (engine != expected) {
      return false;
    }
    reset();
    return true;
  }

  /** Closes the stores built from properties; stores the application passed in stay open. */
  private static void closeOwnedStores() {
    IdempotencyEngine old = engine;
    if (old != null && ownsStores) {
      for (var store : old.config().stores().values()) {
        try {
          store.close();
        } catch (RuntimeException ex) {
          LOG.log(System.Logger.Level.WARNING, "Could not close an idempotency store", ex);
        }
      }
    }
    ownsStores = false;
  }
}
