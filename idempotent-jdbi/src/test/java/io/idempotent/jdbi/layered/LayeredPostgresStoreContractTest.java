package io.idempotent.jdbi.layered;

import io.idempotent.jdbi.TestDatabase;

class LayeredPostgresStoreContractTest extends LayeredStoreContractTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }
}
