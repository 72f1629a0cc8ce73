package io.idempotent.internal;

import io.idempotent.IdempotencyConfigurationException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Parses and compiles the key expression language:
 *
 * <pre>
 * expression := term ('+' term)*
 * term       := '\'' chars '\''            (a literal; '' stands for one quote)
 *             | '#' name ('.' property)*    (a parameter by name, or #p0 / #a0 by position)
 * </pre>
 *
 * Properties are resolved once against the declared types: record component, getter ({@code getX},
 * {@code isX}), accessor-style method ({@code x()}), then field. Errors name the method, the
 * expression and the position.
 */
public final class ExpressionParser {

  private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d+)");
  private static final MethodType OBJECT_TO_OBJECT = MethodType.methodType(Object.class, Object.class);

  private final String source;
  private final String attribute;
  private final MethodSignatureInfo method;
  private int pos;

  private ExpressionParser(String source, String attribute, MethodSignatureInfo method) {
    this.source = source;
    this.attribute = attribute;
    this.method = method;
  }

  /**
   * Compiles {@code source}, an expression of annotation attribute {@code attribute} on {@code method}.
   *
   * @throws IdempotencyConfigurationException naming method, expression and position
   */
  public static Expression compile(String source, String attribute, MethodSignatureInfo method) {
    if (source == null) {
      throw new IdempotencyConfigurationException(
          "Missing expression in @Idempotent(" + attribute + ") of " + method.description());
    }
    return new ExpressionParser(source, attribute, method).parse();
  }

  private Expression parse() {
    List<Expression.Term> terms = new ArrayList<>();
    List<Integer> starts = new ArrayList<>();
    skipSpace();
    if (pos >= source.length()) {
      throw error("the expression is empty", 0);
    }
    starts.add(pos);
    terms.add(term());
    skipSpace();
    while (pos < source.length()) {
      if (source.charAt(pos) != '+') {
        throw error("expected '+' but found '" + printable(source.charAt(pos)) + "'", pos);
      }
      pos++;
      skipSpace();
      if (pos >= source.length()) {
        throw error("expected a term after '+'", pos);
      }
      starts.add(pos);
      terms.add(term());
      skipSpace();
    }
    // keys and scopes are text, and so is a concatenation; a lone payload value is fingerprinted instead
    if (!attribute.equals("payload") || terms.size() > 1) {
      for (int i = 0; i < terms.size(); i++) {
        if (terms.get(i) instanceof Expression.ParameterPath p) {
          terms.set(i, checkText(p, starts.get(i)));
        }
      }
    }
    return new Expression(source, terms.toArray(new Expression.Term[0]));
  }

  /** Refuses a term whose text is an identity hash, or marks it for a check of each value's class. */
  private Expression.ParameterPath checkText(Expression.ParameterPath p, int at) {
    Class<?> type = p.type();
    String advice = "; its text would be an identity hash that differs on every call. Use a property path to a"
        + " value, such as " + p.text() + ".id";
    if (type.isArray()) {
      throw error(p.text() + " is an array (" + type.getSimpleName() + ")" + advice, at);
    }
    if (ValueText.decidedAtRuntime(type)) {
      return new Expression.ParameterPath(p.index(), p.accessors(), type, p.text(), true);
    }
    if (!ValueText.hasValueText(type)) {
      throw error(p.text() + " is a " + type.getName() + ", which does not override toString()" + advice, at);
    }
    return p;
  }

  private Expression.Term term() {
    char c = source.charAt(pos);
    if (c == '\'') {
      return literal();
    }
    if (c == '#') {
      return parameterPath();
    }
    throw error("expected a parameter (#name) or a quoted literal but found '" + printable(c) + "'", pos);
  }

  private Expression.Term literal() {
    int start = pos;
    pos++; // opening quote
    StringBuilder sb = new StringBuilder();
    while (pos < source.length()) {
      char c = source.charAt(pos);
      if (c == '\'') {
        if (pos + 1 < source.length() && source.charAt(pos + 1) == '\'') {
          sb.append('\'');
          pos += 2;
          continue;
        }
        pos++;
        return new Expression.Literal(sb.toString());
      }
      sb.append(c);
      pos++;
    }
    throw error("unterminated string literal", start);
  }

  private Expression.Term parameterPath() {
    int start = pos;
    pos++; // '#'
    int nameStart = pos;
    String name = identifier();
    if (name == null) {
      throw error("expected a parameter name after '#'", nameStart);
    }
    int index = method.indexOf(name);
    if (index < 0) {
      var m = POSITIONAL.matcher(name);
      if (m.matches()) {
        index = parseIndex(m.group(1), nameStart);
      }
    }
    if (index < 0) {
      if (!method.namesPresent()) {
        throw error("unknown parameter '" + name + "': the class was compiled without parameter names (it sees "
            + method.parameterList() + "); compile with -parameters (maven-compiler-plugin and"
            + " aspectj-maven-plugin: <parameters>true</parameters>) or refer to it by position as #p0", nameStart);
      }
      throw error("unknown parameter '" + name + "'; parameters are " + method.parameterList(), nameStart);
    }
    Class<?> type = method.parameterType(index);
    List<MethodHandle> accessors = new ArrayList<>();
    while (pos < source.length() && source.charAt(pos) == '.') {
      pos++;
      int propStart = pos;
      String property = identifier();
      if (property == null) {
        throw error("expected a property name after '.'", propStart);
      }
      Accessor a = resolve(type, property, propStart);
      accessors.add(a.handle());
      type = a.type();
    }
    if (start == pos) {
      throw error("expected a parameter", start);
    }
    return new Expression.ParameterPath(
        index, accessors.toArray(new MethodHandle[0]), type, source.substring(start, pos), false);
  }

  private int parseIndex(String digits, int at) {
    int index;
    try {
      index = Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      index = Integer.MAX_VALUE;
    }
    if (index >= method.parameterCount()) {
      throw error(
          "parameter index " + digits + " is out of range; the method has " + method.parameterCount()
              + " parameter(s)",
          at);
    }
    return index;
  }

  private String identifier() {
    int start = pos;
    if (pos < source.length() && isNameStart(source.charAt(pos))) {
      pos++;
      while (pos < source.length() && (isNameStart(source.charAt(pos)) || Character.isDigit(source.charAt(pos)))) {
        pos++;
      }
      return source.substring(start, pos);
    }
    return null;
  }

  // stricter than Java identifiers, which admit ignorable control characters
  private static boolean isNameStart(char c) {
    return Character.isLetter(c) || c == '_' || c == '$';
  }

  private void skipSpace() {
    while (pos < source.length() && Character.isWhitespace(source.charAt(pos))) {
      pos++;
    }
  }

  private record Accessor(MethodHandle handle, Class<?> type) {}

  private Accessor resolve(Class<?> type, String property, int at) {
    try {
      if (type.isRecord()) {
        for (RecordComponent rc : type.getRecordComponents()) {
          if (rc.getName().equals(property)) {
            return accessor(rc.getAccessor());
          }
        }
      }
      String cap = Character.toUpperCase(property.charAt(0)) + property.substring(1);
      for (String candidate : new String[] {"get" + cap, "is" + cap, property}) {
        Method m = findNoArgMethod(type, candidate);
        if (m != null && (!candidate.startsWith("is") || m.getReturnType() == boolean.class
            || m.getReturnType() == Boolean.class || candidate.equals(property))) {
          return accessor(m);
        }
      }
      Field f = findField(type, property);
      if (f != null) {
        f.setAccessible(true);
        MethodHandle h = MethodHandles.lookup().unreflectGetter(f).asType(OBJECT_TO_OBJECT);
        return new Accessor(h, f.getType());
      }
    } catch (IllegalAccessException | RuntimeException e) {
      throw error("property '" + property + "' of " + type.getName() + " is not accessible: " + e.getMessage(), at);
    }
    throw error("no property '" + property + "' on type " + type.getName()
        + " (looked for a record component, get/is getter, accessor method and field)", at);
  }

  private static Accessor accessor(Method m) throws IllegalAccessException {
    m.setAccessible(true);
    MethodHandle h = MethodHandles.lookup().unreflect(m).asType(OBJECT_TO_OBJECT);
    return new Accessor(h, m.getReturnType());
  }

  private static Method findNoArgMethod(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        if (m.getName().equals(name) && m.getParameterCount() == 0 && m.getReturnType() != void.class
            && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()) {
          return m;
        }
      }
    }
    for (Class<?> i : allInterfaces(type)) {
      for (Method m : i.getMethods()) {
        if (m.getName().equals(name) && m.getParameterCount() == 0 && m.getReturnType() != void.class
            && !Modifier.isStatic(m.getModifiers())) {
          return m;
        }
      }
    }
    return null;
  }

  private static List<Class<?>> allInterfaces(Class<?> type) {
    List<Class<?>> out = new ArrayList<>();
    if (type.isInterface()) {
      out.add(type);
    }
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Class<?> i : c.getInterfaces()) {
        out.add(i);
      }
    }
    return out;
  }

  private static Field findField(Class<?> type, String name) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (f.getName().equals(name) && !Modifier.isStatic(f.getModifiers())) {
          return f;
        }
      }
    }
    return null;
  }

  private static String printable(char c) {
    return Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c);
  }

  private IdempotencyConfigurationException error(String problem, int at) {
    String shown = source.codePoints().anyMatch(Character::isISOControl)
        ? source.chars().mapToObj(ch -> printable((char) ch)).reduce("", String::concat)
        : source;
    return new IdempotencyConfigurationException(
        "Invalid expression in @Idempotent(" + attribute + ") of " + method.description() + ": "
            + problem + " at position " + at + "\n  " + shown + "\n  " + " ".repeat(Math.min(at, shown.length())) + "^");
  }
}
