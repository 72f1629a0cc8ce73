package io.idempotent.testkit;

import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;

class InMemoryTestStoreContractTest extends IdempotencyStoreContract {

  private final FakeTicker ticker = new FakeTicker();

  @Override
  protected IdempotencyStore createStore() {
    return new InMemoryTestStore(ticker, true);
  }

  @Override
  protected void advancePast(Duration d) {
    ticker.advance(d.plusNanos(1));
  }
}
