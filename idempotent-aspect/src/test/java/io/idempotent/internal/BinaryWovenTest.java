package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.idempotent.internal.InMemoryJavac.Result;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotentAspect;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.aspectj.bridge.IMessage;
import org.aspectj.bridge.MessageHandler;
import org.junit.jupiter.api.Test;

/**
 * A class javac compiled as builds do by default for a weaver that comes later (ajc on the compiled classes,
 * or the AspectJ agent as they load): {@code -parameters}, no local variable table. The weaver then records
 * {@code arg0, arg1} as the join point's parameter names; the names of {@code -parameters} are the real ones.
 * Its override with a narrower return type gets a bridge method, which carries a copy of the annotation.
 */
class BinaryWovenTest {

  private static final String SOURCE = """
      package binary;

      import io.idempotent.Idempotent;

      public class Orders implements java.util.function.Function<String, Object> {
        @Override
        @Idempotent(key = "#orderId")
        public String apply(String orderId) {
          return "placed " + orderId;
        }

        @Idempotent(key = "#orderId + ':' + #quantity")
        public String place(String orderId, int quantity) {
          return orderId + "x" + quantity;
        }
      }
      """;

  @Test
  void validate_takesTheNamesOfParameters_overTheWeaversPlaceholders_andSkipsTheBridge() throws Exception {
    Result javac = InMemoryJavac.compile("binary.Orders", SOURCE, null, "-proc:none");
    assertThat(javac.success()).as(javac.reports().toString()).isTrue();
    Path woven = Files.createTempDirectory("idempotent-binary");
    MessageHandler messages = new MessageHandler();
    String aspects = Path.of(IdempotentAspect.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    new org.aspectj.tools.ajc.Main().run(new String[] {
      "-17", "-Xlint:ignore", "-classpath", InMemoryJavac.classPath(), "-aspectpath", aspects,
      "-inpath", javac.classes().toString(), "-d", woven.toString()
    }, messages);
    assertThat(messages.getMessages(IMessage.ERROR, true)).isEmpty();

    try (URLClassLoader loader = new URLClassLoader(new URL[] {woven.toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> orders = loader.loadClass("binary.Orders");
      Method place = orders.getMethod("place", String.class, int.class);
      assertThat(MethodPlan.wovenParameterNames(place)).as("no local variable table to read names from")
          .containsExactly("arg0", "arg1");
      assertThat(Arrays.stream(orders.getDeclaredMethods()).filter(Method::isBridge))
          .as("the bridge apply(Object) carries the annotation too")
          .singleElement().matches(m -> m.isAnnotationPresent(io.idempotent.Idempotent.class));

      assertThatCode(() -> Idempotency.validate(orders)).doesNotThrowAnyException();
      assertThat(MethodPlan.compile(place, MethodPlan.wovenParameterNames(place))).isNotNull();
    }
  }
}
