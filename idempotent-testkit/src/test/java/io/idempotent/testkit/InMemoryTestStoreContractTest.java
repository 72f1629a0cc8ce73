package io.idempotent.testkit;

import io.idempotent.ManualTimeSource;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.spi.IdempotencyStore;
import java.time.Duration;

class InMemoryTestStoreContractTest extends IdempotencyStoreContract {

  private final ManualTimeSource ticker = new ManualTimeSource();

  @Override
  protected IdempotencyStore createStore() {
    return new InMemoryTestStore(ticker, true);
  }

  @Override
  protected void advancePast(Duration d) {
    ticker.advance(d.plusNanos(1));
  }
}
