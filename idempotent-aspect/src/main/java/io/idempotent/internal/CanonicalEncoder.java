package io.idempotent.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Currency;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes a canonical, type-tagged byte encoding of argument values, the input of the payload
 * fingerprint. Equal values give equal bytes regardless of map or set iteration order; values of
 * different kinds ({@code 1} and {@code "1"}) give different bytes.
 *
 * <p>Known value types (strings, numbers, {@code java.time}, UUIDs, enums, collections, maps and their
 * entries, arrays, {@code Optional}...) have a tag of their own. Records are encoded component by component; any other
 * object by its state: every non-static, non-transient field up its class hierarchy, named by
 * declaring class and field name, read reflectively (never through getters, which may compute or
 * throw). Values with no value identity (lambdas, threads, streams, bare {@code Object}s, other JDK
 * types without a rule here) and cyclic or too deep graphs are refused with a {@link
 * FingerprintException} that tells where. Not thread-safe: one instance per thread.
 */
final class CanonicalEncoder {

  /** Deeper graphs are refused rather than risking a stack overflow. */
  static final int MAX_DEPTH = 256;

  private static final MethodType OBJECT_TO_OBJECT = MethodType.methodType(Object.class, Object.class);

  /** How objects of a class that is not a known value type are encoded, or why they cannot be. */
  @SuppressWarnings("ArrayRecordComponent") // built once per class, read by index, never compared
  private record Shape(String refusal, String[] names, byte[][] labels, MethodHandle[] readers, boolean record) {}

  private static final ClassValue<Shape> SHAPES = new ClassValue<>() {
    @Override
    protected Shape computeValue(Class<?> type) {
      return shapeOf(type);
    }
  };

  /** Types {@link #write} encodes by a rule of their own (besides enums, records and arrays); keep in step. */
  static final List<Class<?>> VALUE_TYPES = List.of(
      String.class, Integer.class, Long.class, Short.class, Byte.class, AtomicInteger.class, AtomicLong.class,
      Boolean.class, AtomicBoolean.class, Double.class, Float.class, BigDecimal.class, BigInteger.class,
      Character.class, CharSequence.class, UUID.class, TemporalAccessor.class, java.time.Duration.class,
      java.time.Period.class, java.time.ZoneId.class, URI.class, Path.class, File.class, Currency.class, URL.class,
      Locale.class, Date.class, Class.class, JsonNode.class, Optional.class, Map.class, Map.Entry.class,
      Collection.class);

  /**
   * Why every value of the declared type {@code type} would be refused, or null: for a concrete JDK
   * class without a value rule, whose subclasses cannot be read either.
   */
  static String declaredRefusal(Class<?> type) {
    if (type.isPrimitive() || type.isArray() || type.isInterface() || type == Object.class
        || Modifier.isAbstract(type.getModifiers()) || type.isEnum() || type.isRecord()
        || !ArgumentTypes.isJdk(type)) {
      return null;
    }
    for (Class<?> v : VALUE_TYPES) {
      if (v.isAssignableFrom(type)) {
        return null;
      }
    }
    return SHAPES.get(type).refusal;
  }

  /** The objects that enclose the value being written, outermost first: a repeat is a cycle. */
  private final List<Object> enclosing = new ArrayList<>();

  void write(ByteSink out, Object v) {
    if (v == null) {
      out.put('N');
    } else if (v instanceof String s) {
      writeString(out, 'S', s);
    } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
        || v instanceof AtomicInteger || v instanceof AtomicLong) {
      out.put('J').putLong(((Number) v).longValue());
    } else if (v instanceof Boolean b) {
      out.put(b ? 'T' : 'F');
    } else if (v instanceof AtomicBoolean b) {
      out.put(b.get() ? 'T' : 'F');
    } else if (v instanceof Enum<?> e) {
      writeString(out, 'E', e.name());
    } else if (v instanceof Double || v instanceof Float) {
      out.put('D').putLong(Double.doubleToLongBits(((Number) v).doubleValue()));
    } else if (v instanceof BigDecimal d) {
      writeString(out, 'B', d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString());
    } else if (v instanceof BigInteger i) {
      writeString(out, 'I', i.toString());
    } else if (v instanceof Character c) {
      out.put('C').putChar(c);
    } else if (v instanceof CharSequence cs) {
      writeString(out, 'S', cs.toString());
    } else if (v instanceof UUID || v instanceof TemporalAccessor || v instanceof java.time.Duration
        || v instanceof java.time.Period || v instanceof java.time.ZoneId || v instanceof URI
        || v instanceof Path || v instanceof File || v instanceof Currency) {
      writeString(out, 'V', v.toString());
    } else if (v instanceof URL url) {
      writeString(out, 'V', url.toExternalForm()); // URL.equals and hashCode resolve host names
    } else if (v instanceof Locale l) {
      writeString(out, 'V', l.toLanguageTag());
    } else if (v instanceof Date d) {
      writeString(out, 'V', dateText(d));
    } else if (v instanceof Class<?> c) {
      writeString(out, 'K', c.getName());
    } else if (v instanceof byte[] bytes) {
      out.put('b').putInt(bytes.length).put(bytes, bytes.length);
    } else if (v instanceof JsonNode node) {
      writeJson(out, node);
    } else {
      writeContainer(out, v);
    }
  }

  /** Values that may enclose others, and so may close a cycle. */
  private void writeContainer(ByteSink out, Object v) {
    int depth = enclosing.size();
    for (int i = 0; i < depth; i++) {
      if (enclosing.get(i) == v) {
        throw FingerprintException.cycle(i);
      }
    }
    if (depth >= MAX_DEPTH) {
      throw new FingerprintException("the object graph is nested more than " + MAX_DEPTH + " levels deep");
    }
    enclosing.add(v);
    try {
      if (v instanceof Optional<?> o) {
        out.put('O');
        writeWithin(out, o.orElse(null), ".get()", depth);
      } else if (v instanceof Map<?, ?> m) {
        writeMap(out, m, depth);
      } else if (v instanceof Map.Entry<?, ?> e) {
        out.put('Y');
        writeWithin(out, e.getKey(), ".getKey()", depth);
        writeWithin(out, e.getValue(), ".getValue()", depth);
      } else if (v instanceof Set<?> s) {
        writeUnordered(out, s, depth);
      } else if (v instanceof Collection<?> c) {
        out.put('L').putInt(c.size());
        int i = 0;
        for (Object o : c) {
          writeWithin(out, o, i++, depth);
        }
      } else if (v.getClass().isArray()) {
        int n = Array.getLength(v);
        out.put('L').putInt(n);
        for (int i = 0; i < n; i++) {
          writeWithin(out, Array.get(v, i), i, depth);
        }
      } else {
        writeObject(out, v, depth);
      }
    } finally {
      enclosing.remove(depth);
    }
  }

  private void writeObject(ByteSink out, Object v, int depth) {
    Shape shape = SHAPES.get(v.getClass());
    if (shape.refusal != null) {
      throw new FingerprintException(shape.refusal);
    }
    out.put(shape.record ? 'R' : 'P').putInt(shape.readers.length);
    for (int i = 0; i < shape.readers.length; i++) {
      Object field;
      try {
        field = (Object) shape.readers[i].invokeExact(v);
      } catch (Throwable t) {
        // a record accessor may be overridden and throw; a field read cannot
        throw new FingerprintException("reading " + shape.names[i] + " of " + v.getClass().getName() + " threw "
            + t.getClass().getName());
      }
      if (!shape.record) {
        out.put(shape.labels[i], shape.labels[i].length);
      }
      try {
        write(out, field);
      } catch (FingerprintException e) {
        throw e.within("." + fieldName(shape.names[i]), depth);
      }
    }
  }

  private void writeWithin(ByteSink out, Object child, String segment, int depth) {
    try {
      write(out, child);
    } catch (FingerprintException e) {
      throw e.within(segment, depth);
    }
  }

  private void writeWithin(ByteSink out, Object child, int index, int depth) {
    try {
      write(out, child);
    } catch (FingerprintException e) {
      throw e.within("[" + index + "]", depth);
    }
  }

  private static String fieldName(String qualified) {
    int hash = qualified.lastIndexOf('#');
    return hash < 0 ? qualified : qualified.substring(hash + 1);
  }

  private void writeMap(ByteSink out, Map<?, ?> m, int depth) {
    List<byte[]> entries = new ArrayList<>(m.size());
    ByteSink tmp = new ByteSink(64);
    for (Map.Entry<?, ?> e : m.entrySet()) {
      tmp.reset();
      try {
        write(tmp, e.getKey());
      } catch (FingerprintException x) {
        throw x.within("[a key]", depth); // keys may be secrets: never printed
      }
      try {
        write(tmp, e.getValue());
      } catch (FingerprintException x) {
        throw x.within("[a value]", depth);
      }
      entries.add(tmp.toByteArray());
    }
    writeSorted(out, 'M', entries);
  }

  private void writeUnordered(ByteSink out, Collection<?> c, int depth) {
    List<byte[]> items = new ArrayList<>(c.size());
    ByteSink tmp = new ByteSink(64);
    for (Object o : c) {
      tmp.reset();
      try {
        write(tmp, o);
      } catch (FingerprintException x) {
        throw x.within("[an element]", depth);
      }
      items.add(tmp.toByteArray());
    }
    writeSorted(out, 'U', items);
  }

  private static void writeSorted(ByteSink out, char tag, List<byte[]> items) {
    items.sort(Arrays::compare);
    out.put(tag).putInt(items.size());
    for (byte[] b : items) {
      out.put(b, b.length);
    }
  }

  private void writeJson(ByteSink out, JsonNode n) {
    switch (n.getNodeType()) {
      case NULL, MISSING -> out.put('N');
      case BOOLEAN -> out.put(n.booleanValue() ? 'T' : 'F');
      case NUMBER -> write(out, n.isIntegralNumber() ? (Object) n.bigIntegerValue() : n.decimalValue());
      case STRING -> writeString(out, 'S', n.textValue());
      case BINARY, POJO -> writeString(out, 'S', n.asText());
      case ARRAY -> {
        out.put('L').putInt(n.size());
        for (JsonNode e : n) {
          writeJson(out, e);
        }
      }
      case OBJECT -> {
        List<byte[]> entries = new ArrayList<>(n.size());
        ByteSink tmp = new ByteSink(64);
        for (Map.Entry<String, JsonNode> e : n.properties()) {
          tmp.reset();
          writeString(tmp, 'S', e.getKey());
          writeJson(tmp, e.getValue());
          entries.add(tmp.toByteArray());
        }
        writeSorted(out, 'M', entries);
      }
    }
  }

  private static void writeString(ByteSink out, char tag, String s) {
    out.put(tag).putInt(s.length());
    for (int i = 0; i < s.length(); i++) {
      out.putChar(s.charAt(i));
    }
  }

  /** To the nanosecond for a SQL timestamp; SQL dates and times have no instant, only milliseconds. */
  @SuppressWarnings("JavaUtilDate") // applications pass java.util.Date and java.sql types: they are encoded
  private static String dateText(Date d) {
    try {
      return d.toInstant().toString();
    } catch (UnsupportedOperationException e) {
      return String.valueOf(d.getTime());
    }
  }

  /** Why a JDK type without a rule here cannot be fingerprinted. */
  static String noValueRule(String typeName) {
    return typeName + " is a JDK type the fingerprint has no value rule for";
  }

  private static Shape refused(String why) {
    return new Shape(why, null, null, null, false);
  }

  private static Shape shapeOf(Class<?> type) {
    if (type == Object.class) {
      return refused("a bare java.lang.Object has no state to compare");
    }
    if (type.isHidden() || type.isSynthetic()) {
      return refused(type.getName() + " is a lambda or generated class, which has no value to compare");
    }
    String infrastructure = ArgumentTypes.infrastructure(type);
    if (infrastructure != null) {
      return refused(ArgumentTypes.infrastructureRefusal(type.getName(), infrastructure));
    }
    String none = ArgumentTypes.noValueIdentity(type);
    if (none != null) {
      return refused(none);
    }
    if (ArgumentTypes.isJdk(type)) {
      return refused(noValueRule(type.getName()));
    }
    try {
      return type.isRecord() ? recordShape(type) : fieldShape(type);
    } catch (InaccessibleObjectException | IllegalAccessException | SecurityException e) {
      return refused("the state of " + type.getName() + " cannot be read (" + e.getMessage() + ")");
    }
  }

  private static Shape recordShape(Class<?> type) throws IllegalAccessException {
    RecordComponent[] rcs = type.getRecordComponents();
    String[] names = new String[rcs.length];
    MethodHandle[] readers = new MethodHandle[rcs.length];
    for (int i = 0; i < rcs.length; i++) {
      var m = rcs[i].getAccessor();
      m.setAccessible(true);
      names[i] = rcs[i].getName();
      readers[i] = MethodHandles.lookup().unreflect(m).asType(OBJECT_TO_OBJECT);
    }
    return new Shape(null, names, null, readers, true);
  }

  private static Shape fieldShape(Class<?> type) throws IllegalAccessException {
    List<Field> fields = new ArrayList<>();
    for (Class<?> c = type; c != Object.class; c = c.getSuperclass()) {
      if (ArgumentTypes.isJdk(c)) {
        return refused(type.getName() + " extends " + c.getName()
            + ", a JDK class whose state cannot be read");
      }
      for (Field f : c.getDeclaredFields()) {
        int mod = f.getModifiers();
        if (!Modifier.isStatic(mod) && !Modifier.isTransient(mod) && !f.isSynthetic()) {
          fields.add(f);
        }
      }
    }
    // by declaring class and name: stable whatever order reflection lists them in
    fields.sort(Comparator.comparing((Field f) -> f.getDeclaringClass().getName()).thenComparing(Field::getName));
    String[] names = new String[fields.size()];
    byte[][] labels = new byte[fields.size()][];
    MethodHandle[] readers = new MethodHandle[fields.size()];
    ByteSink label = new ByteSink(64);
    for (int i = 0; i < names.length; i++) {
      Field f = fields.get(i);
      f.setAccessible(true);
      names[i] = f.getDeclaringClass().getName() + "#" + f.getName();
      label.reset();
      writeString(label, 'F', names[i]);
      labels[i] = label.toByteArray(); // encoded once per class, copied per value
      readers[i] = MethodHandles.lookup().unreflectGetter(f).asType(OBJECT_TO_OBJECT);
    }
    return new Shape(null, names, labels, readers, false);
  }
}
