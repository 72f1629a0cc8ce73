package io.idempotent.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Writes a canonical, type-tagged byte encoding of argument values, the input of the payload
 * fingerprint. Equal values give equal bytes regardless of map or set iteration order; values of
 * different kinds ({@code 1} and {@code "1"}) give different bytes. Records are encoded component by
 * component; other objects through their JSON tree with fields in sorted order.
 */
final class CanonicalEncoder {

  private static final ClassValue<MethodHandle[]> RECORD_ACCESSORS = new ClassValue<>() {
    @Override
    protected MethodHandle[] computeValue(Class<?> type) {
      RecordComponent[] rcs = type.getRecordComponents();
      MethodHandle[] out = new MethodHandle[rcs.length];
      for (int i = 0; i < rcs.length; i++) {
        try {
          var m = rcs[i].getAccessor();
          m.setAccessible(true);
          out[i] = MethodHandles.lookup().unreflect(m).asType(MethodType.methodType(Object.class, Object.class));
        } catch (IllegalAccessException | RuntimeException e) {
          throw new IllegalStateException("cannot read record component " + rcs[i], e);
        }
      }
      return out;
    }
  };

  private final ObjectMapper mapper;

  CanonicalEncoder(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  void write(ByteSink out, Object v) {
    if (v == null) {
      out.put('N');
    } else if (v instanceof String s) {
      writeString(out, 'S', s);
    } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      out.put('J').putLong(((Number) v).longValue());
    } else if (v instanceof Boolean b) {
      out.put(b ? 'T' : 'F');
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
        || v instanceof java.time.Period || v instanceof java.time.ZoneId) {
      writeString(out, 'V', v.toString());
    } else if (v instanceof Optional<?> o) {
      out.put('O');
      write(out, o.orElse(null));
    } else if (v instanceof Map<?, ?> m) {
      writeMap(out, m);
    } else if (v instanceof Set<?> s) {
      writeUnordered(out, 'U', s);
    } else if (v instanceof Collection<?> c) {
      out.put('L').putInt(c.size());
      for (Object o : c) {
        write(out, o);
      }
    } else if (v instanceof byte[] bytes) {
      out.put('b').putInt(bytes.length).put(bytes, bytes.length);
    } else if (v.getClass().isArray()) {
      int n = Array.getLength(v);
      out.put('L').putInt(n);
      for (int i = 0; i < n; i++) {
        write(out, Array.get(v, i));
      }
    } else if (v instanceof Record) {
      writeRecord(out, v);
    } else if (v instanceof JsonNode node) {
      writeJson(out, node);
    } else {
      writeJson(out, mapper.valueToTree(v));
    }
  }

  private void writeRecord(ByteSink out, Object r) {
    MethodHandle[] accessors = RECORD_ACCESSORS.get(r.getClass());
    out.put('R').putInt(accessors.length);
    for (MethodHandle accessor : accessors) {
      Object c;
      try {
        c = (Object) accessor.invokeExact(r);
      } catch (Throwable t) {
        throw new IllegalStateException("cannot read a component of " + r.getClass().getName(), t);
      }
      write(out, c);
    }
  }

  private void writeMap(ByteSink out, Map<?, ?> m) {
    List<byte[]> entries = new ArrayList<>(m.size());
    ByteSink tmp = new ByteSink(64);
    for (Map.Entry<?, ?> e : m.entrySet()) {
      tmp.reset();
      write(tmp, e.getKey());
      write(tmp, e.getValue());
      entries.add(tmp.toByteArray());
    }
    writeSorted(out, 'M', entries);
  }

  private void writeUnordered(ByteSink out, char tag, Collection<?> c) {
    List<byte[]> items = new ArrayList<>(c.size());
    ByteSink tmp = new ByteSink(64);
    for (Object o : c) {
      tmp.reset();
      write(tmp, o);
      items.add(tmp.toByteArray());
    }
    writeSorted(out, tag, items);
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
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
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
}
