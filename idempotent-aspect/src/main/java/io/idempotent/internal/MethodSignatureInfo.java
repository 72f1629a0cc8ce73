package io.idempotent.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** What the expression compiler needs to know of a method: its description, parameter names and types. */
public final class MethodSignatureInfo {

  private final String description;
  private final List<String> names;
  private final Class<?>[] types;
  private final boolean namesPresent;

  public MethodSignatureInfo(String description, String[] names, Class<?>[] types) {
    this(description, names, types, true);
  }

  private MethodSignatureInfo(String description, String[] names, Class<?>[] types, boolean namesPresent) {
    this.description = description;
    this.names = Arrays.asList(names.clone());
    this.types = types.clone();
    this.namesPresent = namesPresent;
  }

  /** From reflection: names are real when compiled with {@code -parameters}, else {@code arg0...}. */
  public static MethodSignatureInfo of(Method m, String[] parameterNames) {
    String[] names = parameterNames;
    boolean present = true;
    if (names == null || names.length != m.getParameterCount()) {
      names = Arrays.stream(m.getParameters()).map(p -> p.getName()).toArray(String[]::new);
      present = Arrays.stream(m.getParameters()).allMatch(Parameter::isNamePresent);
    }
    return new MethodSignatureInfo(describe(m), names, m.getParameterTypes(), present);
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

  /** False when reflection saw no parameter names (compiled without {@code -parameters}): arg0, arg1... */
  boolean namesPresent() {
    return namesPresent;
  }

  String parameterName(int index) {
    return names.get(index);
  }

  String parameterList() {
    return names.toString();
  }
}
