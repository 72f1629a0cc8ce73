package io.idempotent.caffeine;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.HostileInputContract;

class CaffeineHostileInputTest extends HostileInputContract {

  @Override
  protected IdempotencyStore createStore() {
    return CaffeineIdempotencyStore.builder().build();
  }
}
