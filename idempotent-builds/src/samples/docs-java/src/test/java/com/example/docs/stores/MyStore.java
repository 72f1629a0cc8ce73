package com.example.docs.stores;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.ManualTimeSource;

/** The store docs/STORES.md's contract test checks: here the Caffeine store on the test's ticker. */
class MyStore extends ForwardingIdempotencyStore {

  MyStore(ManualTimeSource ticker) {
    super(CaffeineIdempotencyStore.builder().ticker(ticker::read).build());
  }
}
