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
 *
 * <p>The grammar and the look-up rules are written once, over a {@link Types} view of the declared
 * types: by reflection at run time ({@link #compile}), through {@code javax.lang.model} while javac or
 * ajc compiles the annotated method ({@link #check}, used by {@link IdempotentProcessor}).
 *
 * @param <T> how the view represents a type: {@code Class<?>} at run time, an erased {@code TypeMirror}
 *     at compile time
 */
public final class ExpressionParser<T> {

  private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d+)");
  private static final MethodType OBJECT_TO_OBJECT = MethodType.methodType(Object.class, Object.class);

  /**
   * What the parser needs to know of declared types. Each look-up follows the runtime's rules: the
   * type and its superclasses first, then the interfaces; types are erased, as reflection sees them.
   */
  interface Types<T> {
    /** The type's name as messages show it. */
    String name(T type);

    String simpleName(T type);

    boolean isArray(T type);

    /** The component of record {@code type} called {@code name}, or null (also when it is no record). */
    Property<T> recordComponent(T type, String name);

    /** The first non-static, non-void method without parameters called {@code name}, or null. */
    Property<T> noArgMethod(T type, String name);

    /** The first non-static field called {@code name} up the class hierarchy, or null. */
    Property<T> field(T type, String name);

    /** {@code boolean} or {@code java.lang.Boolean}. */
    boolean isBoolean(T type);

    /** Whether the declared type cannot tell whether its values have a value text (see {@link ValueText}). */
    boolean decidedAtRuntime(T type);

    /** Whether {@code toString()} of the type is a value text rather than an identity hash. */
    boolean hasValueText(T type);
  }

  /** A resolved property: its declared (erased) type and, at run time, the handle that reads it. */
  record Property<T>(T type, MethodHandle reader) {}

  /** The parameters of the annotated method, as the expressions see them. */
  record Parameters<T>(String description, List<String> names, List<T> types, boolean namesPresent) {
    String parameterList() {
      return names.toString();
    }
  }

  /** A parsed expression: its terms ({@link Expression.Literal} or {@link Path}) in order. */
  record Parsed<T>(String source, List<Object> terms) {
    /** The declared type of a single path, or null for a literal or a concatenation (text). */
    T singlePathType() {
      return terms.size() == 1 && terms.get(0) instanceof Path<?> p ? castType(p) : null;
    }

    @SuppressWarnings("unchecked")
    private T castType(Path<?> p) {
      return (T) p.type();
    }
  }

  /** {@code #param.a.b} resolved: parameter index, property readers (run time only) and declared type. */
  record Path<T>(int index, List<MethodHandle> readers, T type, String text, boolean checkText) {}

  private final String source;
  private final String attribute;
  private final Parameters<T> method;
  private final Types<T> types;
  private int pos;

  private ExpressionParser(String source, String attribute, Parameters<T> method, Types<T> types) {
    this.source = source;
    this.attribute = attribute;
    this.method = method;
    this.types = types;
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
    List<Class<?>> parameterTypes = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < method.parameterCount(); i++) {
      parameterTypes.add(method.parameterType(i));
      names.add(method.parameterName(i));
    }
    Parameters<Class<?>> parameters =
        new Parameters<>(method.description(), names, parameterTypes, method.namesPresent());
    Parsed<Class<?>> parsed = new ExpressionParser<>(source, attribute, parameters, REFLECTION).parse();
    Expression.Term[] terms = new Expression.Term[parsed.terms().size()];
    for (int i = 0; i < terms.length; i++) {
      Object t = parsed.terms().get(i);
      if (t instanceof Path<?> p) {
        terms[i] = new Expression.ParameterPath(p.index(), p.readers().toArray(new MethodHandle[0]),
            (Class<?>) p.type(), p.text(), p.checkText());
      } else {
        terms[i] = (Expression.Term) t;
      }
    }
    return new Expression(source, terms);
  }

  /**
   * Parses {@code source} against {@code parameters} as {@code types} sees them, with the same grammar,
   * look-up rules and refusals as {@link #compile}.
   *
   * @throws IdempotencyConfigurationException with the same message {@link #compile} would give
   */
  static <T> Parsed<T> check(String source, String attribute, Parameters<T> parameters, Types<T> types) {
    return new ExpressionParser<>(source, attribute, parameters, types).parse();
  }

  private Parsed<T> parse() {
    List<Object> terms = new ArrayList<>();
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
        if (terms.get(i) instanceof Path<?> p) {
          terms.set(i, checkText(p, starts.get(i)));
        }
      }
    }
    return new Parsed<>(source, terms);
  }

  /** Refuses a term whose text is an identity hash, or marks it for a check of each value's class. */
  private Path<T> checkText(Path<?> term, int at) {
    @SuppressWarnings("unchecked")
    Path<T> p = (Path<T>) term;
    T type = p.type();
    String advice = "; its text would be an identity hash that differs on every call. Use a property path to a"
        + " value, such as " + p.text() + ".id";
    if (types.isArray(type)) {
      throw error(p.text() + " is an array (" + types.simpleName(type) + ")" + advice, at);
    }
    if (types.decidedAtRuntime(type)) {
      return new Path<>(p.index(), p.readers(), type, p.text(), true);
    }
    if (!types.hasValueText(type)) {
      throw error(p.text() + " is a " + types.name(type) + ", which does not override toString()" + advice, at);
    }
    return p;
  }

  private Object term() {
    char c = source.charAt(pos);
    if (c == '\'') {
      return literal();
    }
    if (c == '#') {
      return parameterPath();
    }
    throw error("expected a parameter (#name) or a quoted literal but found '" + printable(c) + "'", pos);
  }

  private Expression.Literal literal() {
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

  private Path<T> parameterPath() {
    int start = pos;
    pos++; // '#'
    int nameStart = pos;
    String name = identifier();
    if (name == null) {
      throw error("expected a parameter name after '#'", nameStart);
    }
    int index = method.names().indexOf(name);
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
    T type = method.types().get(index);
    List<MethodHandle> readers = new ArrayList<>();
    while (pos < source.length() && source.charAt(pos) == '.') {
      pos++;
      int propStart = pos;
      String property = identifier();
      if (property == null) {
        throw error("expected a property name after '.'", propStart);
      }
      Property<T> a = resolve(type, property, propStart);
      readers.add(a.reader());
      type = a.type();
    }
    if (start == pos) {
      throw error("expected a parameter", start);
    }
    return new Path<>(index, readers, type, source.substring(start, pos), false);
  }

  private int parseIndex(String digits, int at) {
    int index;
    try {
      index = Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      index = Integer.MAX_VALUE;
    }
    if (index >= method.types().size()) {
      throw error(
          "parameter index " + digits + " is out of range; the method has " + method.types().size()
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

  /** Record component, {@code get}/{@code is} getter, accessor method, then field: the one order of look-up. */
  private Property<T> resolve(T type, String property, int at) {
    try {
      Property<T> component = types.recordComponent(type, property);
      if (component != null) {
        return component;
      }
      String cap = Character.toUpperCase(property.charAt(0)) + property.substring(1);
      for (String candidate : new String[] {"get" + cap, "is" + cap, property}) {
        Property<T> m = types.noArgMethod(type, candidate);
        if (m != null && (!candidate.startsWith("is") || types.isBoolean(m.type()) || candidate.equals(property))) {
          return m;
        }
      }
      Property<T> f = types.field(type, property);
      if (f != null) {
        return f;
      }
    } catch (RuntimeException e) {
      throw error("property '" + property + "' of " + types.name(type) + " is not accessible: " + e.getMessage(), at);
    }
    throw error("no property '" + property + "' on type " + types.name(type)
        + " (looked for a record component, get/is getter, accessor method and field)", at);
  }

  /** The declared types as reflection sees them; its properties carry the handles that read them. */
  static final Types<Class<?>> REFLECTION = new Types<>() {
    @Override
    public String name(Class<?> type) {
      return type.getName();
    }

    @Override
    public String simpleName(Class<?> type) {
      return type.getSimpleName();
    }

    @Override
    public boolean isArray(Class<?> type) {
      return type.isArray();
    }

    @Override
    public Property<Class<?>> recordComponent(Class<?> type, String name) {
      if (type.isRecord()) {
        for (RecordComponent rc : type.getRecordComponents()) {
          if (rc.getName().equals(name)) {
            return accessor(rc.getAccessor());
          }
        }
      }
      return null;
    }

    @Override
    public Property<Class<?>> noArgMethod(Class<?> type, String name) {
      Method m = findNoArgMethod(type, name);
      return m == null ? null : accessor(m);
    }

    @Override
    public Property<Class<?>> field(Class<?> type, String name) {
      Field f = findField(type, name);
      if (f == null) {
        return null;
      }
      try {
        f.setAccessible(true);
        return new Property<>(f.getType(), MethodHandles.lookup().unreflectGetter(f).asType(OBJECT_TO_OBJECT));
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }

    @Override
    public boolean isBoolean(Class<?> type) {
      return type == boolean.class || type == Boolean.class;
    }

    @Override
    public boolean decidedAtRuntime(Class<?> type) {
      return ValueText.decidedAtRuntime(type);
    }

    @Override
    public boolean hasValueText(Class<?> type) {
      return ValueText.hasValueText(type);
    }
  };

  private static Property<Class<?>> accessor(Method m) {
    try {
      m.setAccessible(true);
      return new Property<>(m.getReturnType(), MethodHandles.lookup().unreflect(m).asType(OBJECT_TO_OBJECT));
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
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
