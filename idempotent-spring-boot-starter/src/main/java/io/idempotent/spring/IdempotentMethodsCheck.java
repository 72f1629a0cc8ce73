package io.idempotent.spring;

import io.idempotent.Idempotent;
import io.idempotent.runtime.Idempotency;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.ClassUtils;

/**
 * Checks every {@code @Idempotent} method of the application's beans once they are all created, with
 * {@link Idempotency#validate}: a method that was not woven, a bad key expression, a result that cannot be
 * recorded or a store name no store has stops the start instead of failing (or running unprotected) at
 * the first call. Switched off with {@code idempotent.validate-on-startup=false}.
 */
final class IdempotentMethodsCheck implements SmartInitializingSingleton {

  private final ListableBeanFactory beans;

  IdempotentMethodsCheck(ListableBeanFactory beans) {
    this.beans = beans;
  }

  @Override
  public void afterSingletonsInstantiated() {
    Set<Class<?>> annotated = new LinkedHashSet<>();
    for (String name : beans.getBeanDefinitionNames()) {
      Class<?> type = beans.getType(name, false);
      for (Class<?> c = type == null ? null : ClassUtils.getUserClass(type);
           c != null && c != Object.class && !c.getName().startsWith("java."); c = c.getSuperclass()) {
        if (hasIdempotentMethod(c)) {
          annotated.add(c);
        }
      }
    }
    if (!annotated.isEmpty()) {
      Idempotency.validate(annotated.toArray(new Class<?>[0]));
    }
  }

  private static boolean hasIdempotentMethod(Class<?> c) {
    try {
      for (Method m : c.getDeclaredMethods()) {
        if (m.isAnnotationPresent(Idempotent.class)) {
          return true;
        }
      }
    } catch (LinkageError e) {
      // a class whose methods name a type that is not on the class path cannot hold a method that runs
    }
    return false;
  }
}
