package io.idempotent.caffeine;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.FakeTicker;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;

class CaffeineStoreContractTest extends IdempotencyStoreContract {

  private final FakeTicker ticker = new FakeTicker();

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
