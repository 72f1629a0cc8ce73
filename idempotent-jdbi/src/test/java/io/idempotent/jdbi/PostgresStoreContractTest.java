package io.idempotent.jdbi;

class PostgresStoreContractTest extends JdbiStoreContractTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }
}
