package io.idempotent.caffeine;

import io.idempotent.ManualTimeSource;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;

class CaffeineStoreContractTest extends IdempotencyStoreContract {

  private final ManualTimeSource ticker = new ManualTimeSource();

  @Override
  protected IdempotencyStore createStore() {
    return CaffeineIdempotencyStore.builder().ticker(ticker::read).build();
  }

  @Override
  protected boolean expiresByItself() {
    return true;
  }

  @Override
  protected void advancePast(Duration d) {
    ticker.advance(d.plusNanos(1));
  }
}
