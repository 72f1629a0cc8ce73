package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreSettings;
import io.idempotent.spi.StoredOutcome;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The zero-configuration store (the provider's embedded H2 file) keeps an outcome it has acknowledged
 * when its process is killed with SIGKILL at once: otherwise a retry after the restart would run the
 * method a second time. A JVM of its own completes a record through the provider, says so, and is
 * killed; the next JVM (this one) must find it completed.
 */
class EmbeddedDefaultCrashTest {

  private static final String COMPLETED = "COMPLETED ";

  @Test
  void outcomeAcknowledgedJustBeforeAKill_isThereAfterTheRestart(@TempDir Path home) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path errors = home.resolve("child.stderr.log");
    Process child = new ProcessBuilder(java, "-Xmx128m", "-Duser.home=" + home,
        "-cp", System.getProperty("java.class.path"), CompleteThenWait.class.getName())
        .redirectError(errors.toFile())
        .start();
    String key;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      assertThat(line).as("the child's output (errors: %s)", Files.exists(errors) ? Files.readString(errors) : "")
          .startsWith(COMPLETED);
      key = line.substring(COMPLETED.length());
      child.destroyForcibly(); // SIGKILL, right after the acknowledgement
      assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      child.destroyForcibly();
    }

    String previousHome = System.getProperty("user.home");
    System.setProperty("user.home", home.toString());
    try (IdempotencyStore store = new JdbiStoreProvider().create(settings())) {
      assertThat(store.find(key)).as("the record acknowledged before the kill").isPresent()
          .get().extracting(r -> r.state()).isEqualTo(RecordState.COMPLETED);
    } finally {
      System.setProperty("user.home", previousHome);
    }
  }

  private static StoreSettings settings() {
    return new StoreSettings("jdbi", Map.of("purge-interval", "PT0S"));
  }

  /** The child: claims and completes one key on the embedded default, prints it, and waits to be killed. */
  public static final class CompleteThenWait {
    public static void main(String[] args) throws Exception {
      IdempotencyStore store = new JdbiStoreProvider().create(settings());
      String key = "crash-" + ProcessHandle.current().pid();
      store.claim(key, "", "owner", Duration.ofMinutes(5));
      store.complete(key, "owner", StoredOutcome.nullValue(), Duration.ofDays(1));
      System.out.println(COMPLETED + key);
      System.out.flush();
      Thread.sleep(60_000);
    }
  }
}
