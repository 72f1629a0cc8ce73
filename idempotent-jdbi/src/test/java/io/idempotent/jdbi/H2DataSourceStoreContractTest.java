package io.idempotent.jdbi;

/** The contract kit on a store built from the pool: plain JDBC connections borrowed per operation. */
class H2DataSourceStoreContractTest extends JdbiStoreContractTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected boolean fromDataSource() {
    return true;
  }
}
