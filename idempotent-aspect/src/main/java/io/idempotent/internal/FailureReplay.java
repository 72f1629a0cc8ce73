package io.idempotent.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.idempotent.IdempotencyResultException;
import io.idempotent.ReplayedCause;
import io.idempotent.internal.text.JsonText;
import io.idempotent.spi.StoredOutcome;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Records a final exception and recreates an equivalent one on a replay.
 *
 * <p>A replayed final exception has the same class, the same message, and the same values in its own
 * fields (those declared below {@link Throwable} in classes open to reflection: an application's
 * classes on the class path, not the JDK's); its cause is a chain of {@link ReplayedCause} giving each
 * original cause's class name and message; its stack trace is the replaying call's.
 *
 * <p>The recreating constructor is the first of: one whose parameters are named (compiled with {@code
 * -parameters}) after the recorded fields, or {@code message} and {@code cause}, most parameters first;
 * {@code (String)} or {@code (String, Throwable)} with the recorded message; {@code ()} — whose instance
 * has the recorded message and field values. Non-public constructors are used where reflection may. The
 * same recreation is tried when the exception is first recorded, so one that would not come back
 * faithfully is never recorded.
 *
 * <p>Only a declared final exception type or a subclass of one is ever instantiated: stored data cannot
 * name an arbitrary class, and field values are read only as the declared types of the chosen
 * constructor's parameters. Thread-safe.
 */
final class FailureReplay {

  private static final ObjectMapper MAPPER = JacksonResultCodec.resultMapper().build();
  private static final int MAX_CAUSES = 8;
  /** The constructors worth trying per type, in the order they are tried. */
  private static final ClassValue<List<Constructor<?>>> CANDIDATES = new ClassValue<>() {
    @Override
    protected List<Constructor<?>> computeValue(Class<?> type) {
      return candidates(type);
    }
  };

  private FailureReplay() {}

  /** A thrown final exception that a replay could not recreate faithfully. */
  static final class NotRecreatable extends Exception {
    private static final long serialVersionUID = 1L;

    NotRecreatable(String reason, Throwable cause) {
      super(reason, cause, false, false);
    }
  }

  /**
   * Why a declared final type can never be recreated, or null when it can (or when only its subclasses
   * are ever thrown: an abstract type is checked on each thrown subclass instead).
   */
  static String unrecreatable(Class<? extends Throwable> declared) {
    if (Modifier.isAbstract(declared.getModifiers())) {
      return null;
    }
    if (CANDIDATES.get(declared).isEmpty()) {
      return "it has no constructor a replay can call (taking parameters named after its fields, (String),"
          + " (String, Throwable) or ()), or none open to reflection";
    }
    return null;
  }

  /**
   * The state to keep for {@code t}: its message, fields and cause description as JSON, checked to
   * recreate an exception equal in class, message and fields.
   *
   * @throws NotRecreatable saying why it would not come back faithfully
   */
  static String record(Throwable t) throws NotRecreatable {
    ObjectNode state = MAPPER.createObjectNode();
    state.put("message", t.getMessage());
    ObjectNode fields;
    try {
      fields = normalised(fieldsOf(t));
    } catch (ReflectiveOperationException | RuntimeException | JsonProcessingException e) {
      throw new NotRecreatable("its fields cannot be kept as JSON: " + e, e);
    }
    state.set("fields", fields);
    JsonNode cause = causes(t);
    if (cause != null) {
      state.set("cause", cause);
    }
    if (recreate(t.getClass(), t.getMessage(), fields, null) == null) {
      throw new NotRecreatable(
          "no constructor of it (taking parameters named after its fields, (String), (String, Throwable) or ())"
              + " gives back an exception with the same message and fields", null);
    }
    String json;
    try {
      json = JsonText.escapeLoneSurrogates(MAPPER.writeValueAsString(state));
    } catch (JsonProcessingException e) {
      throw new NotRecreatable("its state cannot be written as JSON: " + e, e);
    }
    if (json.length() > JacksonResultCodec.MAX_RESULT_CHARS) {
      // what could not be read back (or stored) must not be recorded
      throw new NotRecreatable("its state is " + json.length() + " characters of JSON, more than the "
          + JacksonResultCodec.MAX_RESULT_CHARS + " a recorded outcome may have", null);
    }
    return json;
  }

  /**
   * A new exception equivalent to the stored final failure of the method {@code description} names, which
   * declares {@code finalExceptions} and is called from {@code classLoader}.
   */
  static Throwable recreate(
      String description,
      Class<? extends Throwable>[] finalExceptions,
      ClassLoader classLoader,
      StoredOutcome outcome) {
    Class<? extends Throwable> type = allowedType(finalExceptions, classLoader, outcome.failureType());
    if (type == null) {
      throw new IdempotencyResultException(
          "The stored final failure of " + description + " has type " + outcome.failureType()
              + ", which is not one of its declared final exceptions; refusing to recreate it", null);
    }
    String message = outcome.failureMessage();
    ObjectNode fields = null; // recorded before state was kept: only the message is compared
    JsonNode cause = null;
    String json = outcome.json();
    if (json != null) {
      try {
        JsonNode state = readState(json);
        message = state.path("message").isTextual() ? state.get("message").textValue() : null;
        fields = state.get("fields") instanceof ObjectNode o ? o : MAPPER.createObjectNode();
        cause = state.get("cause");
      } catch (JsonProcessingException | RuntimeException e) {
        throw new IdempotencyResultException(
            "Cannot read the stored state of the final failure " + type.getName() + " of " + description, e);
      }
    }
    Throwable t = recreate(type, message, fields, cause);
    if (t == null) {
      throw new IdempotencyResultException(
          "Cannot recreate the stored final failure " + type.getName() + " of " + description
              + ": no constructor of it gives back its recorded message and fields", null);
    }
    return t;
  }

  private static Throwable recreate(Class<?> type, String message, ObjectNode fields, JsonNode causeState) {
    ReplayedCause cause = replayedCause(causeState, 0);
    for (Constructor<?> c : CANDIDATES.get(type)) {
      Object[] args = arguments(c, message, fields, cause);
      if (args == null) {
        continue;
      }
      Throwable t;
      try {
        t = (Throwable) c.newInstance(args);
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        continue; // this constructor refuses these values: try the next
      }
      if (Objects.equals(t.getMessage(), message) && (fields == null || sameFields(t, fields))) {
        if (cause != null && t.getCause() == null) {
          try {
            t.initCause(cause);
          } catch (IllegalStateException e) {
            // the constructor set a null cause on purpose
          }
        }
        return t;
      }
    }
    return null;
  }

  private static Object[] arguments(Constructor<?> c, String message, ObjectNode fields, ReplayedCause cause) {
    Parameter[] ps = c.getParameters();
    Object[] named = byName(ps, message, fields, cause);
    if (named != null) {
      return named;
    }
    Class<?>[] types = c.getParameterTypes();
    if (types.length == 1 && types[0] == String.class) {
      return new Object[] {message};
    }
    if (types.length == 2 && types[0] == String.class && types[1] == Throwable.class) {
      return new Object[] {message, cause};
    }
    return types.length == 0 ? new Object[0] : null;
  }

  private static Object[] byName(Parameter[] ps, String message, ObjectNode fields, ReplayedCause cause) {
    if (ps.length == 0 || !ps[0].isNamePresent()) {
      return null;
    }
    Object[] args = new Object[ps.length];
    for (int i = 0; i < ps.length; i++) {
      Parameter p = ps[i];
      JsonNode value = fields == null ? null : fields.get(p.getName());
      if (value != null) {
        try {
          args[i] = MAPPER.treeToValue(value, MAPPER.constructType(p.getParameterizedType()));
        } catch (JsonProcessingException | RuntimeException e) {
          return null;
        }
      } else if (p.getName().equals("message") && p.getType() == String.class) {
        args[i] = message;
      } else if (p.getName().equals("cause") && p.getType().isAssignableFrom(ReplayedCause.class)) {
        args[i] = cause;
      } else {
        return null;
      }
    }
    return args;
  }

  private static boolean sameFields(Throwable t, ObjectNode recorded) {
    try {
      return normalised(fieldsOf(t)).equals(recorded);
    } catch (ReflectiveOperationException | RuntimeException | JsonProcessingException e) {
      return false;
    }
  }

  /** The instance fields below Throwable that reflection may read, by name (a subclass's first). */
  private static ObjectNode fieldsOf(Throwable t) throws ReflectiveOperationException {
    ObjectNode out = MAPPER.createObjectNode();
    for (Field f : stateFields(t.getClass())) {
      out.set(f.getName(), MAPPER.valueToTree(f.get(t)));
    }
    return out;
  }

  private static List<Field> stateFields(Class<?> type) {
    List<Field> out = new ArrayList<>();
    Set<String> names = new LinkedHashSet<>();
    for (Class<?> c = type; c != null && c != Throwable.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        int m = f.getModifiers();
        if (Modifier.isStatic(m) || Modifier.isTransient(m) || f.isSynthetic() || names.contains(f.getName())) {
          continue;
        }
        if (trySetAccessible(f)) { // the JDK's own classes are closed to reflection: their fields are not kept
          names.add(f.getName());
          out.add(f);
        }
      }
    }
    return out;
  }

  /** The recorded state; a map key holding a lone surrogate is read as in {@link JacksonResultCodec#decode}. */
  private static JsonNode readState(String json) throws JsonProcessingException {
    try {
      return MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      String raw = JsonText.unescapeSurrogates(json);
      if (raw.equals(json)) {
        throw e;
      }
      return MAPPER.readTree(raw);
    }
  }

  /** The node as it reads back from its text, so that recorded and recreated compare alike (int vs long). */
  private static ObjectNode normalised(ObjectNode node) throws JsonProcessingException {
    return (ObjectNode) MAPPER.readTree(MAPPER.writeValueAsString(node));
  }

  private static JsonNode causes(Throwable t) {
    List<Throwable> chain = new ArrayList<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    seen.add(t);
    for (Throwable c = t.getCause(); c != null && chain.size() < MAX_CAUSES && seen.add(c); c = c.getCause()) {
      chain.add(c);
    }
    ObjectNode inner = null;
    for (int i = chain.size() - 1; i >= 0; i--) {
      ObjectNode node = MAPPER.createObjectNode();
      node.put("type", chain.get(i).getClass().getName());
      node.put("message", chain.get(i).getMessage());
      if (inner != null) {
        node.set("cause", inner);
      }
      inner = node;
    }
    return inner;
  }

  private static ReplayedCause replayedCause(JsonNode node, int depth) {
    if (node == null || !node.isObject() || depth >= MAX_CAUSES) {
      return null;
    }
    String message = node.path("message").isTextual() ? node.get("message").textValue() : null;
    return new ReplayedCause(node.path("type").asText("?"), message, replayedCause(node.get("cause"), depth + 1));
  }

  private static List<Constructor<?>> candidates(Class<?> type) {
    if (Modifier.isAbstract(type.getModifiers())) {
      return List.of();
    }
    Set<String> fieldNames = new LinkedHashSet<>();
    for (Field f : stateFields(type)) {
      fieldNames.add(f.getName());
    }
    List<Constructor<?>> out = new ArrayList<>();
    IdentityHashMap<Constructor<?>, Integer> rank = new IdentityHashMap<>();
    for (Constructor<?> c : type.getDeclaredConstructors()) {
      int r = rank(c, fieldNames);
      if (r >= 0 && trySetAccessible(c)) {
        out.add(c);
        rank.put(c, r);
      }
    }
    out.sort(Comparator.<Constructor<?>>comparingInt(rank::get)
        .thenComparing(c -> -c.getParameterCount())
        .thenComparing(c -> Modifier.isPublic(c.getModifiers()) ? 0 : 1));
    return List.copyOf(out);
  }

  /** 0: parameters named after fields, message or cause; 1: (String) or (String, Throwable); 2: (); -1: unusable. */
  private static int rank(Constructor<?> c, Set<String> fieldNames) {
    Parameter[] ps = c.getParameters();
    if (ps.length > 0 && ps[0].isNamePresent()) {
      boolean all = true;
      for (Parameter p : ps) {
        all &= fieldNames.contains(p.getName())
            || (p.getName().equals("message") && p.getType() == String.class)
            || (p.getName().equals("cause") && p.getType().isAssignableFrom(ReplayedCause.class));
      }
      if (all) {
        return 0;
      }
    }
    Class<?>[] types = c.getParameterTypes();
    if ((types.length == 1 && types[0] == String.class)
        || (types.length == 2 && types[0] == String.class && types[1] == Throwable.class)) {
      return 1;
    }
    return types.length == 0 ? 2 : -1;
  }

  private static boolean trySetAccessible(java.lang.reflect.AccessibleObject o) {
    try {
      return o.trySetAccessible();
    } catch (SecurityException e) {
      return false;
    }
  }

  private static Class<? extends Throwable> allowedType(
      Class<? extends Throwable>[] finalExceptions, ClassLoader classLoader, String name) {
    for (Class<? extends Throwable> declared : finalExceptions) {
      if (declared.getName().equals(name)) {
        return declared;
      }
    }
    // a subclass may live where the declared type cannot see it (an application's subclass of a JDK
    // exception): look through the loaders of the declared type, of the call site and of the thread
    ClassLoader[] loaders = {classLoader, Thread.currentThread().getContextClassLoader()};
    for (Class<? extends Throwable> declared : finalExceptions) {
      Class<? extends Throwable> c = subclass(name, declared, declared.getClassLoader());
      for (int i = 0; c == null && i < loaders.length; i++) {
        c = loaders[i] == null ? null : subclass(name, declared, loaders[i]);
      }
      if (c != null) {
        return c;
      }
    }
    return null;
  }

  private static Class<? extends Throwable> subclass(String name, Class<? extends Throwable> declared, ClassLoader l) {
    try {
      Class<?> c = Class.forName(name, false, l);
      return declared.isAssignableFrom(c) ? c.asSubclass(Throwable.class) : null;
    } catch (ClassNotFoundException | LinkageError e) {
      return null; // not visible from this loader
    }
  }
}
