package io.idempotent.jdbi.layered;

import io.idempotent.jdbi.TestDatabase;

class LayeredH2StoreContractTest extends LayeredStoreContractTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
