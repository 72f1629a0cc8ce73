package io.idempotent.layered;

import io.idempotent.ManualTimeSource;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;

/** The layered composition itself passes the kit (here over two reference stores on one fake clock). */
class LayeredStoreContractTest extends IdempotencyStoreContract {

  private final ManualTimeSource ticker = new ManualTimeSource();

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
