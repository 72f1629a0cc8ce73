package io.idempotent.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.spi.CallScopedClaims;
import io.idempotent.spi.ChangeSignals;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.InMemoryStore;
import io.idempotent.spi.KeyLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shape docs/DESIGN.md ("Store SPI") gives the code: a store interface a store author writes in a few
 * methods, optional capabilities as interfaces of one method or none, and no class of the main code so large
 * that it does several things (the contract kit, a catalogue of tests, aside).
 */
class StoreShapeTest {

  private static final int MAX_STORE_METHODS = 7;
  private static final int MAX_LINES = 500;

  private static List<Method> instanceMethods(Class<?> type) {
    return Arrays.stream(type.getMethods()).filter(m -> !Modifier.isStatic(m.getModifiers())).toList();
  }

  @Test
  void theStoreInterface_hasAtMostSevenMethods_andEachCapabilityAtMostOne() {
    assertThat(instanceMethods(IdempotencyStore.class)).hasSizeLessThanOrEqualTo(MAX_STORE_METHODS);
    for (Class<?> capability : List.of(CallScopedClaims.class, ChangeSignals.class, KeyLimits.class,
        InMemoryStore.class)) {
      assertThat(instanceMethods(capability)).as(capability.getSimpleName()).hasSizeLessThanOrEqualTo(1);
    }
  }

  @Test
  void noSourceFileOfTheMainCode_outsideTheContractKit_isLongerThanFiveHundredLines() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    try (Stream<Path> files = Files.walk(root, 12)) {
      List<String> tooLong = files
          .filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/"))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/idempotent-testkit/"))
          .filter(p -> lines(p) > MAX_LINES)
          .map(p -> root.relativize(p) + " (" + lines(p) + " lines)")
          .toList();
      assertThat(tooLong).isEmpty();
    }
  }

  private static long lines(Path p) {
    try (Stream<String> lines = Files.lines(p)) {
      return lines.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
