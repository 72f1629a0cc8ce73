package io.idempotent.jdbi;

class H2StoreContractTest extends JdbiStoreContractTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
