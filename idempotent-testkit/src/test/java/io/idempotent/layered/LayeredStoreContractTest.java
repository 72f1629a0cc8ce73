package io.idempotent.layered;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.FakeTicker;
import io.idempotent.testkit.IdempotencyStoreContract;
import io.idempotent.testkit.InMemoryTestStore;
import java.time.Duration;

/** The layered composition itself passes the kit (here over two reference stores on one fake clock). */
class LayeredStoreContractTest extends IdempotencyStoreContract {

  private final FakeTicker ticker = new FakeTicker();

  @Override
  protected IdempotencyStore createStore() {
    return new LayeredIdempotencyStore(
        new InMemoryTestStore(ticker, false), new InMemoryTestStore(ticker, true), ticker);
  }

  @Override
  protected void advancePast(Duration d) {
    ticker.advance(d.plusNanos(1));
  }
}
