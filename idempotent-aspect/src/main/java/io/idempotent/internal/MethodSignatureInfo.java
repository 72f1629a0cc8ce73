package io.idempotent.internal;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** What the expression compiler needs to know of a method: its description, parameter names and types. */
public final class MethodSignatureInfo {

  private final String description;
  private final List<String> names;
  private final Class<?>[] types;

  public MethodSignatureInfo(String description, String[] names, Class<?>[] types) {
    this.description = description;
    this.names = Arrays.asList(names.clone());
    this.types = types.clone();
  }

  /** From reflection: names are real when compiled with {@code -parameters}, else {@code arg0...}. */
  public static MethodSignatureInfo of(Method m, String[] parameterNames) {
    String[] names = parameterNames;
    if (names == null || names.length != m.getParameterCount()) {
      names = Arrays.stream(m.getParameters()).map(p -> p.getName()).toArray(String[]::new);
    }
    return new MethodSignatureInfo(describe(m), names, m.getParameterTypes());
  }

  public static String describe(Method m) {
    return m.getDeclaringClass().getName() + "." + m.getName()
        + Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
  }

  /** For programmatic calls, where the "method" is a named call with the given arguments. */
  public static MethodSignatureInfo forCall(String name, int arity) {
    String[] names = new String[arity];
    Class<?>[] types = new Class<?>[arity];
    for (int i = 0; i < arity; i++) {
      names[i] = "p" + i;
      types[i] = Object.class;
    }
    return new MethodSignatureInfo(name, names, types);
  }

  public String description() {
    return description;
  }

  int indexOf(String name) {
    return names.indexOf(name);
  }

  int parameterCount() {
    return types.length;
  }

  Class<?> parameterType(int index) {
    return types[index];
  }

  String parameterName(int index) {
    return names.get(index);
  }

  String parameterList() {
    return names.toString();
  }
}
