package io.idempotent.spring.sample;

import io.idempotent.testservers.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The sample application on the PostgreSQL test server, in a schema of its own; skipped when the server is unreachable. */
class PostgresSampleApplicationTest extends SampleApplicationTest {

  static PostgresSchema schema;

  @BeforeAll
  static void createSchema() {
    schema = PostgresSchema.create();
  }

  @DynamicPropertySource
  static void postgres(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> schema.url());
    registry.add("spring.datasource.username", () -> TestServers.POSTGRES.user);
    registry.add("spring.datasource.password", () -> TestServers.POSTGRES.password);
  }

  @AfterAll
  static void dropSchema() {
    if (schema != null) {
      schema.drop();
    }
  }
}
