package io.idempotent.examples.scenarios;

import io.idempotent.examples.TestDatabases;
import java.util.Map;

/**
 * The scenarios on PostgreSQL, each run in a schema of its own (other builds may share the server).
 * Skipped when the server is unreachable, failed instead with {@code idempotent.requireServers=true}.
 */
class PostgresScenariosTest extends ScenarioTestBase {

  private String schema;

  @Override
  Map<String, String> database() {
    schema = TestDatabases.createPostgresSchema();
    return TestDatabases.postgres(schema);
  }

  @Override
  void dropDatabase() {
    if (schema != null) {
      TestDatabases.dropPostgresSchema(schema);
    }
  }
}
