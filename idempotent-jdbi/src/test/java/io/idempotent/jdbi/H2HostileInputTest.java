package io.idempotent.jdbi;

class H2HostileInputTest extends JdbiHostileInputTestBase {

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }
}
