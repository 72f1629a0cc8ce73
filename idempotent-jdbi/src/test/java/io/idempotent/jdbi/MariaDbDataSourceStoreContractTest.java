package io.idempotent.jdbi;

/** The contract kit on a store built from the pool: plain JDBC connections borrowed per operation. */
class MariaDbDataSourceStoreContractTest extends JdbiStoreContractTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  @Override
  protected boolean fromDataSource() {
    return true;
  }
}
