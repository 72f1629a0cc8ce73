package io.idempotent.jdbi;

class MariaDbHostileInputTest extends JdbiHostileInputTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
