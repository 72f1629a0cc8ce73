package io.idempotent.jdbi;

/** Application instances with pools of their own on one PostgreSQL table: the database alone decides. */
class PostgresMultiInstanceTest extends JdbiMultiInstanceTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.POSTGRES;
  }
}
