package io.idempotent.jdbi;

class PostgresHostileInputTest extends JdbiHostileInputTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }
}
