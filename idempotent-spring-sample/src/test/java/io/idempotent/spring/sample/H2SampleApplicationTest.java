package io.idempotent.spring.sample;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The sample application on an H2 file of its own. */
class H2SampleApplicationTest extends SampleApplicationTest {

  @TempDir
  static Path dir;

  @DynamicPropertySource
  static void h2(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> "jdbc:h2:file:" + dir.resolve("shop") + ";LOCK_TIMEOUT=10000");
  }
}
