package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.internal.InMemoryJavac.Result;
import io.idempotent.runtime.Idempotency;
import io.idempotent.weaving.WovenOrders;
import java.net.URL;
import java.net.URLClassLoader;
import org.junit.jupiter.api.Test;

/** {@link Idempotency#validate} tells a class ajc wove from one javac compiled with nothing to weave it. */
class WeavingCheckTest {

  @Test
  void anAjcWovenClassPasses() {
    assertThat(MethodPlan.notWoven(method(WovenOrders.class, "place"))).isNull();
    assertThat(MethodPlan.notWoven(method(WovenOrders.class, "refund"))).isNull(); // a static method
    assertThatCode(() -> Idempotency.validate(WovenOrders.class)).doesNotThrowAnyException();
  }

  @Test
  void aJavacCompiledClassIsReportedAsNotWoven() throws Exception {
    String source = """
        package plain;

        import io.idempotent.Idempotent;

        public class Orders {
          @Idempotent(key = "#orderId")
          public String place(String orderId) { return orderId; }

          @Idempotent(key = "#orderId")
          public static String refund(String orderId) { return orderId; }
        }
        """;
    Result r = InMemoryJavac.compile("plain.Orders", source, null, "-proc:none");
    assertThat(r.success()).as(r.reports().toString()).isTrue();

    try (URLClassLoader loader = new URLClassLoader(new URL[] {r.classes().toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> orders = loader.loadClass("plain.Orders");
      assertThatThrownBy(() -> Idempotency.validate(orders))
          .isInstanceOf(IdempotencyConfigurationException.class)
          .hasMessageContaining("plain.Orders.place(String) is annotated with @Idempotent but was not woven, so its"
              + " calls run unprotected")
          .hasMessageContaining("plain.Orders.refund(String) is annotated with @Idempotent but was not woven")
          .hasMessageContaining("compile it with ajc");
    }
  }

  private static java.lang.reflect.Method method(Class<?> c, String name) {
    for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
      if (m.getName().equals(name)) {
        return m;
      }
    }
    throw new AssertionError(name);
  }
}
