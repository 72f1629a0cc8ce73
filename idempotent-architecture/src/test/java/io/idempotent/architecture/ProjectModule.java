package io.idempotent.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.examples.Demo;
import io.idempotent.http.IdempotencyFilter;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.micrometer.MicrometerIdempotency;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The project's modules whose main classes the rules read, each found on the test class path through a
 * class it holds: the built jar in a full build, the classes directory when only the tests run.
 */
enum ProjectModule {
  ASPECT("io.idempotent", Idempotency.class),
  CAFFEINE("io.idempotent.caffeine", CaffeineIdempotencyStore.class),
  JDBI("io.idempotent.jdbi", JdbiIdempotencyStore.class),
  REDIS("io.idempotent.redis", RedisIdempotencyStore.class),
  HTTP("io.idempotent.http", IdempotencyFilter.class),
  MICROMETER("io.idempotent.micrometer", MicrometerIdempotency.class),
  TESTKIT("io.idempotent.testkit", IdempotencyStoreContract.class),
  SPRING("io.idempotent.spring", io.idempotent.spring.SpringTransactions.class),
  /** Not published: an application of the library, woven like one. */
  EXAMPLES("io.idempotent.examples", Demo.class);

  /** The Java module name: idempotent-aspect's descriptor names it, the others' manifests. */
  final String moduleName;
  private final Path location;

  ProjectModule(String moduleName, Class<?> member) {
    this.moduleName = moduleName;
    try {
      this.location = Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final JavaClasses MAIN_CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importLocations(locations());

  /** The main classes of every module here, and nothing else. */
  static JavaClasses mainClasses() {
    return MAIN_CLASSES;
  }

  private static List<Location> locations() {
    List<Location> locations = new ArrayList<>();
    for (ProjectModule m : values()) {
      locations.add(m.location.toString().endsWith(".jar")
          ? Location.of(URI.create("jar:" + m.location.toUri() + "!/"))
          : Location.of(m.location));
    }
    return locations;
  }

  boolean holds(JavaClass c) {
    return c.getSource().map(s -> Path.of(locationOf(s.getUri())).startsWith(location)).orElse(false);
  }

  /** The class file's own path, or the jar's path for a class in a jar. */
  private static URI locationOf(URI uri) {
    if (uri.getScheme().equals("jar")) {
      String s = uri.getSchemeSpecificPart();
      return URI.create(s.substring(0, s.indexOf("!/")));
    }
    return uri;
  }

  DescribedPredicate<JavaClass> classes() {
    return DescribedPredicate.describe("in " + moduleName, this::holds);
  }

  /** The packages of this module's main classes. */
  SortedSet<String> packages() {
    SortedSet<String> packages = new TreeSet<>();
    for (JavaClass c : MAIN_CLASSES) {
      if (holds(c)) {
        packages.add(c.getPackageName());
      }
    }
    return packages;
  }

  /**
   * The packages other modules may use: what the descriptor exports to everyone, and for a module without
   * a descriptor (an automatic module, which exports everything) all of its packages.
   */
  SortedSet<String> exportedPackages() {
    ModuleDescriptor d = descriptor();
    if (d.isAutomatic()) {
      return packages();
    }
    SortedSet<String> exported = new TreeSet<>();
    d.exports().stream().filter(e -> !e.isQualified()).forEach(e -> exported.add(e.source()));
    return exported;
  }

  /** The descriptor the JVM gives this module on the module path. */
  ModuleDescriptor descriptor() {
    if (!location.toString().endsWith(".jar") && !location.resolve("module-info.class").toFile().isFile()) {
      // a classes directory without a descriptor is no module; its jar would be an automatic module
      return ModuleDescriptor.newAutomaticModule(moduleName).packages(packages()).build();
    }
    return ModuleFinder.of(location).findAll().stream().map(ModuleReference::descriptor).findFirst()
        .orElseThrow();
  }
}
