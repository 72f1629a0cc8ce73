package io.idempotent.jdbi.layered;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiHostileInputTestBase;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;

/** The hostile-input contract on the production composition: Caffeine in front of the H2 table. */
class LayeredH2HostileInputTest extends JdbiHostileInputTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected IdempotencyStore around(JdbiIdempotencyStore table) {
    return new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), table);
  }
}
