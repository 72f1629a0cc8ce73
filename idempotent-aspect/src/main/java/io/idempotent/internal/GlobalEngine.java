package io.idempotent.internal;

import io.idempotent.IdempotencyConfig;

/** Holds the engine the woven aspect uses; configured from the environment on first use unless installed. */
public final class GlobalEngine {

  private static volatile IdempotencyEngine engine;

  private GlobalEngine() {}

  public static IdempotencyEngine get() {
    IdempotencyEngine e = engine;
    if (e == null) {
      synchronized (GlobalEngine.class) {
        e = engine;
        if (e == null) {
          e = new IdempotencyEngine(EnvironmentConfiguration.load());
          engine = e;
        }
      }
    }
    return e;
  }

  public static synchronized IdempotencyEngine install(IdempotencyConfig config) {
    IdempotencyEngine e = new IdempotencyEngine(config);
    engine = e;
    return e;
  }

  public static synchronized void reset() {
    engine = null;
  }
}
