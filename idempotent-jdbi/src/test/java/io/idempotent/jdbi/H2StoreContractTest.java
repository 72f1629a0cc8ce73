package io.idempotent.jdbi;

import org.junit.jupiter.api.BeforeAll;

class H2StoreContractTest extends JdbiStoreContractTestBase {

  @BeforeAll
  static void reachable() {
    TestDatabase.H2.requireReachable();
  }

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
