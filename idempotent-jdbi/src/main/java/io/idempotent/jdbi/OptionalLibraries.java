package io.idempotent.jdbi;

import io.idempotent.IdempotencyConfigurationException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The libraries this module declares optional, asked for only where the provider needs them: HikariCP
 * for the pool it builds from properties, H2 for the embedded default database. An application that
 * builds its store on its own {@code DataSource} and database needs neither. Immutable.
 */
final class OptionalLibraries {

  static final String HIKARI_CLASS = "com.zaxxer.hikari.HikariDataSource";
  static final String H2_CLASS = "org.h2.Driver";

  private final Predicate<String> present;

  /** @param present whether a class of the given binary name can be loaded */
  OptionalLibraries(Predicate<String> present) {
    this.present = Objects.requireNonNull(present, "present");
  }

  /** What the given class loader can load. */
  static OptionalLibraries on(ClassLoader loader) {
    return new OptionalLibraries(name -> isPresent(name, loader));
  }

  static boolean isPresent(String className, ClassLoader loader) {
    try {
      Class.forName(className, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Refuses, naming the artifact, unless HikariCP is there. */
  void requirePool() {
    if (!present.test(HIKARI_CLASS)) {
      throw new IdempotencyConfigurationException(
          "The jdbi idempotency store provider builds its connection pool with HikariCP, which is not on the"
              + " class path: add the dependency com.zaxxer:HikariCP, or build the store on a DataSource of"
              + " your own with JdbiIdempotencyStore.builder(dataSource) and install it in IdempotencyConfig");
    }
  }

  /** Refuses, naming the artifact, unless H2 is there for the embedded default database at {@code file}. */
  void requireEmbeddedH2(Path file) {
    if (!present.test(H2_CLASS)) {
      throw new IdempotencyConfigurationException(
          "No idempotent.jdbi.url is set, so the jdbi idempotency store would use the embedded H2 database at "
              + file + ", but H2 is not on the class path: add the dependency com.h2database:h2, or set"
              + " idempotent.jdbi.url to your database (with its JDBC driver on the class path)");
    }
  }
}
