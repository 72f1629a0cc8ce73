package io.idempotent.jdbi;

import org.junit.jupiter.api.BeforeAll;

class PostgresStoreContractTest extends JdbiStoreContractTestBase {

  @BeforeAll
  static void reachable() {
    TestDatabase.POSTGRES.requireReachable();
  }

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }
}
