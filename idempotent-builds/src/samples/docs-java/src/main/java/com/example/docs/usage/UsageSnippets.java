package com.example.docs.usage;

import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.JsonCodec;
import io.idempotent.spi.IdempotencyStore;

/** docs/USAGE.md's configuration of the default codec's mapper. */
public final class UsageSnippets {

  private UsageSnippets() {}

  public static IdempotencyConfig withMoneyModule(IdempotencyStore store) {
    // README snippet: usage-codec
    return config;
  }
}
