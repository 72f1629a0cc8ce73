package io.idempotent.testkit;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.spi.ForwardingIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;

/**
 * The multi-instance contract passes on the reference store: each instance is a store object of its own
 * over one shared map of records, as instances of a server-backed store share the server's data.
 */
class InMemoryTestStoreMultiInstanceTest extends MultiInstanceContract {

  private final InMemoryTestStore records = new InMemoryTestStore(System::nanoTime, true);

  /** One application instance's view of the shared records. */
  private static final class Instance extends ForwardingIdempotencyStore {
    Instance(IdempotencyStore records) {
      super(records);
    }

    @Override
    public void close() {
      // the records outlive every instance
    }
  }

  @Override
  protected IdempotencyStore createInstance() {
    return new Instance(records);
  }
}
