package io.idempotent.jdbi;

/** Application instances with pools of their own on one MariaDB table: the database alone decides. */
class MariaDbMultiInstanceTest extends JdbiMultiInstanceTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
