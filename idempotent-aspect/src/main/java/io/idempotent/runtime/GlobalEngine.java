package io.idempotent.runtime;

import io.idempotent.internal.IdempotencyEngine;
import io.idempotent.internal.JacksonResultCodec;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.ResultCodec;
import org.jspecify.annotations.Nullable;

/**
 * Holds the engine the woven aspect uses, with the configuration it was made from; configured from the
 * environment on first use unless one was installed.
 */
final class GlobalEngine {
  private static final System.Logger LOG = System.getLogger("io.idempotent");

  /** An engine and the configuration it runs. */
  record Installed(IdempotencyEngine engine, IdempotencyConfig config) {
    static Installed of(IdempotencyConfig config) {
      return new Installed(new IdempotencyEngine(config.engineSettings()), config);
    }
  }

  private static volatile @Nullable Installed installed;
  /** Whether {@link #installed}'s stores were built here from properties, and so are ours to close. */
  private static boolean ownsStores;

  private GlobalEngine() {}

  static Installed get() {
    Installed e = installed;
    if (e == null) {
      synchronized (GlobalEngine.class) {
        e = installed;
        if (e == null) {
          e = Installed.of(EnvironmentConfiguration.load());
          installed = e;
          ownsStores = true;
        }
      }
    }
    return e;
  }

  /** The configuration of the engine in use, or null while none is configured yet (none is made here). */
  static @Nullable IdempotencyConfig installedConfig() {
    Installed e = installed;
    return e == null ? null : e.config();
  }

  /** The codec of the engine in use, or the default codec while none is configured yet. */
  static ResultCodec installedCodec() {
    Installed e = installed;
    return e != null ? e.config().codec() : JacksonResultCodec.shared();
  }

  static synchronized Installed install(IdempotencyConfig config) {
    Installed e = Installed.of(config);
    closeOwnedStores();
    installed = e;
    return e;
  }

  static synchronized void reset() {
    closeOwnedStores();
    installed = null;
  }

  /** Resets only while {@code expected} is the engine in use; returns whether it was. */
  static synchronized boolean resetIf(IdempotencyEngine expected) {
    Installed e = installed;
    if (e == null || e.engine() != expected) {
      return false;
    }
    reset();
    return true;
  }

  /** Closes the stores built from properties; stores the application passed in stay open. */
  private static void closeOwnedStores() {
    Installed old = installed;
    if (old != null && ownsStores) {
      for (IdempotencyStore store : old.config().stores().values()) {
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
