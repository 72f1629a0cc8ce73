package io.idempotent.jdbi;

import org.junit.jupiter.api.BeforeAll;

class MariaDbStoreContractTest extends JdbiStoreContractTestBase {

  @BeforeAll
  static void reachable() {
    TestDatabase.MARIADB.requireReachable();
  }

  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
