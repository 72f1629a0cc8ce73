package io.idempotent.jdbi;

class MariaDbStoreContractTest extends JdbiStoreContractTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
