package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreSettings;
import io.idempotent.spi.StoredOutcome;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.mvstore.DataUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded default database is a file: one written by the previous H2 release this library used is
 * read by the current one, and one the current H2 cannot read, or an empty one, is refused with what to do.
 */
class H2FileFormatTest {

  /** The H2 jar of the previous release, copied by the build (maven-dependency-plugin). */
  private static final String PREVIOUS_H2_JAR = "idempotent.test.previousH2Jar";
  private static final String PREVIOUS_H2_VERSION = "idempotent.test.previousH2Version";

  @TempDir
  Path home;
  private String userHome;

  @BeforeEach
  void pointUserHomeAtATemporaryDirectory() {
    userHome = System.getProperty("user.home");
    System.setProperty("user.home", home.toString());
  }

  @AfterEach
  void restoreUserHome() {
    System.setProperty("user.home", userHome);
  }

  private static StoreSettings noUrl() {
    return new StoreSettings("jdbi", Map.of("purge-interval", "PT0S"));
  }

  @Test
  void aRecordWrittenByThePreviousH2_isReplayedByTheProviderOnTheCurrentH2() throws Exception {
    String previousJar = System.getProperty(PREVIOUS_H2_JAR);
    String previousVersion = System.getProperty(PREVIOUS_H2_VERSION);
    assertThat(previousJar).as("the build passes -D" + PREVIOUS_H2_JAR).isNotBlank();
    assertThat(Path.of(previousJar)).exists();
    try (Connection current = DriverManager.getConnection("jdbc:h2:mem:")) {
      assertThat(current.getMetaData().getDatabaseProductVersion()).doesNotStartWith(previousVersion + " ");
    }

    Path database = JdbiStoreProvider.defaultH2Path();
    Files.createDirectories(database.getParent());
    try (URLClassLoader previousH2 = new URLClassLoader(new URL[] {Path.of(previousJar).toUri().toURL()},
        ClassLoader.getPlatformClassLoader())) {
      DataSource old = (DataSource) previousH2.loadClass("org.h2.jdbcx.JdbcDataSource")
          .getConstructor().newInstance();
      old.getClass().getMethod("setURL", String.class).invoke(old, "jdbc:h2:file:" + database);
      old.getClass().getMethod("setUser", String.class).invoke(old, "sa");
      try (Connection c = old.getConnection()) {
        assertThat(c.getMetaData().getDatabaseProductVersion()).startsWith(previousVersion + " ");
      }
      try (JdbiIdempotencyStore written = JdbiIdempotencyStore.builder(old).createSchema(true).build()) {
        assertThat(written.claim("order-42", "fp", "owner", Duration.ofMinutes(1)).claimed()).isTrue();
        written.complete("order-42", "owner", StoredOutcome.valueJson("{\"receipt\":\"r-1\"}"), Duration.ofDays(1));
      }
    }
    assertThat(Path.of(database + ".mv.db")).exists();

    try (JdbiIdempotencyStore store = (JdbiIdempotencyStore) new JdbiStoreProvider().create(noUrl())) {
      var record = store.find("order-42").orElseThrow();
      assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
      assertThat(record.outcome().json()).isEqualTo("{\"receipt\":\"r-1\"}");
    }
  }

  @Test
  void aFileInAFormatTheCurrentH2CannotRead_isRefusedWithWhatToDo() throws Exception {
    Path database = JdbiStoreProvider.defaultH2Path();
    Files.createDirectories(database.getParent());
    Path file = Path.of(database + ".mv.db");
    Files.write(file, fileWithHeader("H:2,block:2,blockSize:1000,chunk:0,created:18c1b2a3f00,format:1,version:1"));

    assertThatThrownBy(() -> new JdbiStoreProvider().create(noUrl()))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("another H2 version (file format 1)")
        .hasMessageContaining("org.h2.tools.Script")
        .hasMessageContaining("delete the file to start afresh");
    assertThat(file).exists(); // nothing is deleted or overwritten for the user
  }

  @Test
  void aDatabaseFileTruncatedToNothing_isRefusedWithWhatToDo_neverTakenForANewDatabase() throws Exception {
    Idempotency idempotency;
    AtomicInteger runs = new AtomicInteger();
    try (JdbiIdempotencyStore store = (JdbiIdempotencyStore) new JdbiStoreProvider().create(noUrl())) {
      idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());
      assertThat(idempotency.call("orders.place", String.class).key("o-1").run(() -> "placed-" + runs.incrementAndGet()))
          .isEqualTo("placed-1");
    }
    Path file = Path.of(JdbiStoreProvider.defaultH2Path() + ".mv.db");
    assertThat(Files.size(file)).isPositive();
    Files.write(file, new byte[0]); // a full disk, a failed copy, a restore gone wrong

    assertThatThrownBy(() -> new JdbiStoreProvider().create(noUrl()))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("is empty (0 bytes)")
        .hasMessageContaining("every call recorded in it would run again")
        .hasMessageContaining("Restore the file from a backup");
    assertThat(Files.size(file)).as("the file is left as it is, not made into a new database").isZero();
  }

  @Test
  void anEmptyFileNamedByAnH2FileUrl_isRefusedToo() throws Exception {
    Path database = home.resolve("named").resolve("records");
    Files.createDirectories(database.getParent());
    Path file = Path.of(database + ".mv.db");
    Files.write(file, new byte[0]);
    assertThatThrownBy(() -> new JdbiStoreProvider().create(new StoreSettings("jdbi",
        Map.of("url", "jdbc:h2:file:~/named/records;WRITE_DELAY=0", "purge-interval", "PT0S"))))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining(file.toString()).hasMessageContaining("is empty (0 bytes)");
    assertThat(Files.size(file)).isZero();
  }

  @Test
  void otherConnectionFailures_keepTheGeneralMessage() throws Exception {
    Path database = JdbiStoreProvider.defaultH2Path();
    Files.createDirectories(database.getParent());
    Files.writeString(Path.of(database + ".mv.db"), "not a database\n".repeat(400));

    assertThatThrownBy(() -> new JdbiStoreProvider().create(noUrl()))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageStartingWith("Cannot connect the jdbi idempotency store to the embedded H2 database");
  }

  /**
   * An MVStore file of two header blocks, as H2 writes them, with the given header: key:value pairs and the
   * Fletcher-32 checksum H2 checks. H2 1.4 wrote format 1 and 2; H2 2.x reads neither.
   */
  private static byte[] fileWithHeader(String header) {
    byte[] bytes = header.getBytes(StandardCharsets.ISO_8859_1);
    int checksum = DataUtils.getFletcher32(bytes, 0, bytes.length);
    String line = header + ",fletcher:" + Integer.toHexString(checksum) + "\n";
    byte[] block = new byte[4096];
    byte[] lineBytes = line.getBytes(StandardCharsets.ISO_8859_1);
    System.arraycopy(lineBytes, 0, block, 0, lineBytes.length);
    byte[] file = new byte[2 * block.length];
    System.arraycopy(block, 0, file, 0, block.length);
    System.arraycopy(block, 0, file, block.length, block.length);
    return file;
  }
}
