package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotentAspect;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.aspectj.bridge.IMessage;
import org.aspectj.bridge.MessageHandler;
import org.junit.jupiter.api.Test;

/**
 * A class woven by ajc but compiled without {@code -parameters} keeps its parameter names only in its debug
 * information, which ajc records at each join point: the woven calls resolve {@code #orderId} with them, and
 * {@link Idempotency#validate} judges the class with the same names.
 */
class WovenParameterNamesTest {

  private static final String SOURCE = """
      package names;

      import io.idempotent.Idempotent;

      public class Orders {
        @Idempotent(key = "#orderId")
        public String place(String orderId, int quantity) {
          return orderId + "x" + quantity;
        }
      }
      """;

  private static Class<?> wovenWithoutParameterNames(Path dir, URLClassLoader[] loader) throws Exception {
    Path file = dir.resolve("src/names/Orders.java");
    Files.createDirectories(file.getParent());
    Files.writeString(file, SOURCE);
    MessageHandler messages = new MessageHandler();
    String aspects = Path.of(IdempotentAspect.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    new org.aspectj.tools.ajc.Main().run(new String[] {
      "-17", "-g", "-proc:none", "-Xlint:ignore", "-classpath", InMemoryJavac.classPath(), "-aspectpath", aspects,
      "-d", dir.resolve("classes").toString(), file.toString()
    }, messages);
    assertThat(messages.getMessages(IMessage.ERROR, true)).isEmpty();
    loader[0] = new URLClassLoader(new URL[] {dir.resolve("classes").toUri().toURL()},
        WovenParameterNamesTest.class.getClassLoader());
    return loader[0].loadClass("names.Orders");
  }

  @Test
  void validate_aClassCompiledWithoutParameterNames_usesTheNamesAjcRecorded_asTheWovenCallsDo() throws Exception {
    URLClassLoader[] loader = new URLClassLoader[1];
    Class<?> orders = wovenWithoutParameterNames(Files.createTempDirectory("idempotent-names"), loader);
    try (URLClassLoader closing = loader[0]) {
      Method place = orders.getMethod("place", String.class, int.class);
      assertThat(place.getParameters()[0].isNamePresent()).as("compiled without -parameters").isFalse();
      assertThatThrownBy(() -> MethodPlan.compile(place, null))
          .as("reflection alone does not know #orderId").isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("orderId");

      assertThat(MethodPlan.wovenParameterNames(place)).containsExactly("orderId", "quantity");
      Idempotency.validate(orders); // no problem reported
    }
  }
}
