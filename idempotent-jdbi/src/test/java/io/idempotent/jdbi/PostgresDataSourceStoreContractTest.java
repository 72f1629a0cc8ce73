package io.idempotent.jdbi;

/** The contract kit on a store built from the pool: plain JDBC connections borrowed per operation. */
class PostgresDataSourceStoreContractTest extends JdbiStoreContractTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }

  @Override
  protected boolean fromDataSource() {
    return true;
  }
}
