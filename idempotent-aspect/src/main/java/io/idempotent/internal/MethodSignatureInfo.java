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

  /**
   * The names the weaver recorded, else those of reflection (real when compiled with {@code -parameters},
   * else {@code arg0...}). A weaver that found no debug information in the class file (javac without
   * {@code -g}, woven after compiling or as the class loads) records {@code arg0...} too: then the names
   * of {@code -parameters} are the real ones.
   */
  public static MethodSignatureInfo of(Method m, String[] parameterNames) {
    Parameter[] parameters = m.getParameters();
    boolean reflected = Arrays.stream(parameters).allMatch(Parameter::isNamePresent);
    if (parameterNames != null && parameterNames.length == parameters.length) {
      boolean recordedNone = placeholders(parameterNames);
      if (!(reflected && recordedNone)) {
        return new MethodSignatureInfo(describe(m), parameterNames, m.getParameterTypes(), !recordedNone);
      }
    }
    String[] names = Arrays.stream(parameters).map(Parameter::getName).toArray(String[]::new);
    return new MethodSignatureInfo(describe(m), names, m.getParameterTypes(), reflected);
  }

  /** Whether {@code names} are arg0, arg1...: what a weaver records when the class file kept no names. */
  private static boolean placeholders(String[] names) {
    for (int i = 0; i < names.length; i++) {
      if (!names[i].equals("arg" + i)) {
        return false;
      }
    }
    return names.length > 0;
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
