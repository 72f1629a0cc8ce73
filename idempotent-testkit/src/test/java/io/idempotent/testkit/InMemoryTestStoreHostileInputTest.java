package io.idempotent.testkit;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.spi.IdempotencyStore;

/** The hostile-input contract passes on the reference store. */
class InMemoryTestStoreHostileInputTest extends HostileInputContract {

  @Override
  protected IdempotencyStore createStore() {
    return new InMemoryTestStore(System::nanoTime, true);
  }
}
