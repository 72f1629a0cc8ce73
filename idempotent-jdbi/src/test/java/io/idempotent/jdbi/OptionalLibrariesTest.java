package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.IdempotencyStoreProvider;
import io.idempotent.spi.StoreSettings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HikariCP and H2 are optional dependencies of this module: the provider needs HikariCP for the pool it
 * builds from properties, and H2 only for the embedded default database. Without them it says which
 * artifact to add.
 */
class OptionalLibrariesTest {

  private static final String HIKARI = "com.zaxxer.hikari.HikariDataSource";
  private static final String H2 = "org.h2.Driver";

  private static StoreSettings settings(Map<String, String> values) {
    return new StoreSettings("jdbi", values);
  }

  private static OptionalLibraries without(String... missingClasses) {
    Set<String> missing = Set.of(missingClasses);
    return new OptionalLibraries(name -> !missing.contains(name));
  }

  @Test
  void onTheClassPath_findsHikariAndH2_here_andNotAClassThatIsMissing() {
    OptionalLibraries here = OptionalLibraries.on(getClass().getClassLoader());
    here.requirePool();
    here.requireEmbeddedH2(Path.of("anywhere"));
    assertThat(OptionalLibraries.isPresent("io.idempotent.jdbi.NoSuchClass", getClass().getClassLoader()))
        .isFalse();
    assertThat(OptionalLibraries.isPresent(HIKARI, getClass().getClassLoader())).isTrue();
  }

  @Test
  void create_withoutHikari_namesTheArtifact_andTheWayAround() {
    JdbiStoreProvider provider = new JdbiStoreProvider(without(HIKARI));
    String url = "jdbc:h2:mem:no-pool-" + UUID.randomUUID();
    assertThatThrownBy(() -> provider.create(settings(Map.of("url", url))))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("com.zaxxer:HikariCP")
        .hasMessageContaining("JdbiIdempotencyStore.builder");
  }

  @Test
  void create_withoutH2_andNoUrl_namesTheArtifact_andTheProperty(@TempDir Path home) {
    String previous = System.getProperty("user.home");
    System.setProperty("user.home", home.toString());
    try {
      JdbiStoreProvider provider = new JdbiStoreProvider(without(H2));
      assertThatThrownBy(() -> provider.create(settings(Map.of())))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("com.h2database:h2")
          .hasMessageContaining("idempotent.jdbi.url");
    } finally {
      System.setProperty("user.home", previous);
    }
  }

  @Test
  void create_withAUrl_needsNoH2Check() {
    // the url's own driver is what connects; the embedded default's library is not asked for
    JdbiStoreProvider provider = new JdbiStoreProvider(without(H2));
    String url = "jdbc:h2:mem:with-url-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    try (JdbiIdempotencyStore store = (JdbiIdempotencyStore) provider.create(
        settings(Map.of("url", url, "purge-interval", "PT0S")))) {
      assertThat(store.dialect()).isEqualTo(SqlDialect.H2);
    }
  }

  @Test
  void theProvider_loads_andExplains_withHikariTrulyAbsentFromTheClassPath() throws Exception {
    ClassLoader withoutHikari = new HidingClassLoader(getClass().getClassLoader(), List.of("com.zaxxer."));
    IdempotencyStoreProvider provider = (IdempotencyStoreProvider) withoutHikari
        .loadClass(JdbiStoreProvider.class.getName()).getConstructor().newInstance();
    assertThat(provider.name()).isEqualTo("jdbi");
    assertThatThrownBy(() -> provider.create(settings(Map.of("url", "jdbc:h2:mem:hidden"))))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("com.zaxxer:HikariCP");
  }

  /** Defines this module's classes itself, so that they link against it, and hides some packages. */
  private static final class HidingClassLoader extends ClassLoader {
    private final List<String> hiddenPrefixes;

    HidingClassLoader(ClassLoader parent, List<String> hiddenPrefixes) {
      super(parent);
      this.hiddenPrefixes = hiddenPrefixes;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        if (hiddenPrefixes.stream().anyMatch(name::startsWith)) {
          throw new ClassNotFoundException(name + " is hidden from this test");
        }
        if (!name.startsWith("io.idempotent.jdbi.")) {
          return super.loadClass(name, resolve);
        }
        Class<?> loaded = findLoadedClass(name);
        if (loaded != null) {
          return loaded;
        }
        try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
          if (in == null) {
            throw new ClassNotFoundException(name);
          }
          byte[] bytes = in.readAllBytes();
          return defineClass(name, bytes, 0, bytes.length);
        } catch (IOException e) {
          throw new ClassNotFoundException(name, e);
        }
      }
    }
  }
}
