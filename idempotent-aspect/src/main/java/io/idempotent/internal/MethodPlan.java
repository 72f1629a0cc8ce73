package io.idempotent.internal;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.Idempotent;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A compiled {@link Idempotent} method: its {@link CallPlan} and its key, scope and payload
 * expressions. Built once per method. Immutable and thread-safe.
 */
public final class MethodPlan {

  /** Letters, digits, '_', '.' and '-': store names as property names spell them ({@code idempotent.<store>.*}). */
  private static final Pattern STORE_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]*");

  private final CallPlan call;
  private final Expression key;
  private final Expression scope;
  private final Expression[] payload;
  /** Without payload expressions: the arguments that are fingerprinted, or null for all of them. */
  private final int[] fingerprinted;
  /** How each fingerprinted value is named in errors, and the root of paths inside it. */
  private final String[] labels;
  private final String[] roots;

  private MethodPlan(CallPlan call, Expression key, Expression scope, Expression[] payload, int[] fingerprinted,
      String[] labels, String[] roots) {
    this.call = call;
    this.key = key;
    this.scope = scope;
    this.payload = payload;
    this.fingerprinted = fingerprinted;
    this.labels = labels;
    this.roots = roots;
  }

  /**
   * Compiles the annotation of {@code method}.
   *
   * @param parameterNames names as the weaver recorded them, or null to read them by reflection
   * @throws io.idempotent.IdempotencyConfigurationException naming the method, attribute and position
   */
  public static MethodPlan compile(Method method, String[] parameterNames) {
    Idempotent a = method.getAnnotation(Idempotent.class);
    if (a == null) {
      throw new IllegalArgumentException(method + " is not annotated with @Idempotent");
    }
    MethodSignatureInfo sig = MethodSignatureInfo.of(method, parameterNames);
    String description = sig.description();
    if (kotlinSuspend(method)) {
      throw new IdempotencyConfigurationException(description + " is a Kotlin suspend function, which @Idempotent"
          + " does not support: its outcome arrives through its Continuation after the method has returned, and"
          + " the Continuation is not part of what the call is about. Annotate a function that is not suspend"
          + " (call it from the coroutine, e.g. inside withContext(Dispatchers.IO)) or use"
          + " Idempotency.global().call(...)");
    }
    Expression key = ExpressionParser.compile(a.key(), "key", sig);
    Expression scope = a.scope().isBlank() ? null : ExpressionParser.compile(a.scope(), "scope", sig);
    Expression[] payload = null;
    int[] fingerprinted = null;
    List<String> labels = new ArrayList<>();
    List<String> roots = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    if (a.payload().length > 0) {
      payload = new Expression[a.payload().length];
      for (int i = 0; i < payload.length; i++) {
        payload[i] = ExpressionParser.compile(a.payload()[i], "payload", sig);
        String refusal = refusal(payload[i].staticType(), true);
        if (refusal != null && a.checkPayload()) {
          problems.add("@Idempotent(payload = \"" + payload[i].source() + "\") " + refusal);
        }
        labels.add("@Idempotent(payload = \"" + payload[i].source() + "\")");
        roots.add(payload[i].source());
      }
    } else {
      List<Integer> kept = new ArrayList<>();
      for (int i = 0; i < sig.parameterCount(); i++) {
        Class<?> type = sig.parameterType(i);
        if (ArgumentTypes.infrastructure(type) != null) {
          continue; // a handle or connection is how the call runs, not what it is about
        }
        String refusal = refusal(type, false);
        if (refusal != null && a.checkPayload()) {
          problems.add("parameter '" + sig.parameterName(i) + "' " + refusal);
        }
        kept.add(i);
        labels.add("parameter '" + sig.parameterName(i) + "' (" + type.getSimpleName() + ")");
        roots.add(sig.parameterName(i));
      }
      if (kept.size() < sig.parameterCount()) {
        fingerprinted = kept.stream().mapToInt(Integer::intValue).toArray();
      }
    }
    if (!problems.isEmpty()) {
      throw new IdempotencyConfigurationException(payloadProblem(description, problems));
    }
    String storeProblem = storeNameProblem(a.store());
    if (storeProblem != null) {
      throw new IdempotencyConfigurationException("@Idempotent(store) of " + description + ": " + storeProblem);
    }
    // the erased parameter types tell overloads apart, so that one never replays another's result
    String name = a.name().isBlank() ? description : a.name();
    CallPlan call = new CallPlan(
        name,
        description,
        a.store(),
        CallPlan.duration(a.ttl(), "ttl", description),
        CallPlan.duration(a.lease(), "lease", description),
        CallPlan.duration(a.waitTimeout(), "waitTimeout", description),
        a.onInProgress(),
        a.finalExceptions(),
        a.checkPayload(),
        scope != null,
        method.getGenericReturnType(),
        method.getDeclaringClass().getClassLoader(),
        CallPlan.duration(a.maxRunTime(), "maxRunTime", description),
        a.effects());
    if (call.shape != CallPlan.ResultShape.VOID) {
      Class<?> raw = CallPlan.rawType(call.resultType);
      if (raw == Optional.class && call.resultType instanceof ParameterizedType p) {
        raw = CallPlan.rawType(p.getActualTypeArguments()[0]);
      }
      String why = unrecordable(raw);
      if (why != null) {
        throw new IdempotencyConfigurationException(unrecordableResult(description, call.resultType.getTypeName(), why));
      }
    }
    return new MethodPlan(call, key, scope, payload, fingerprinted, labels.toArray(new String[0]),
        roots.toArray(new String[0]));
  }

  /** Whether {@code method} is a Kotlin suspend function: kotlinc adds a last parameter, its Continuation. */
  static boolean kotlinSuspend(Method method) {
    Class<?>[] types = method.getParameterTypes();
    return types.length > 0 && types[types.length - 1].getName().equals("kotlin.coroutines.Continuation");
  }

  /**
   * Why {@code store}, the store attribute of an annotation, cannot name a store, or null; empty names the
   * default store.
   */
  static String storeNameProblem(String store) {
    if (store.isEmpty() || STORE_NAME.matcher(store).matches()) {
      return null;
    }
    return "\"" + store + "\" is not a store name: write letters, digits, '_', '.' and '-' only, the name the"
        + " store is registered under (as in the property idempotent.<store>.*), or leave it empty for the"
        + " default store";
  }

  /**
   * Why results of the declared (raw) type {@code raw} can never be recorded and replayed, whatever the
   * codec, or null: a resource, a connection or behaviour rather than a value.
   */
  static String unrecordable(Class<?> raw) {
    String infrastructure = ArgumentTypes.infrastructure(raw);
    return infrastructure != null
        ? ArgumentTypes.infrastructureRefusal(raw.getName(), infrastructure)
        : ArgumentTypes.noValueIdentity(raw);
  }

  static String unrecordableResult(String description, String typeName, String why) {
    return description + " returns " + typeName + ", which cannot be recorded and replayed: " + why
        + ". Return the value that describes the outcome (a record, an id, a String) instead";
  }

  /**
   * Why the annotation of {@code method} has no effect because the aspect was not woven into it, or null
   * when it was. ajc moves a woven method's body into a static {@code <name>_aroundBody<n>} method of
   * the same class, which takes the target (unless the method is static), the arguments and the join
   * point.
   */
  public static String notWoven(Method method) {
    String description = MethodSignatureInfo.describe(method);
    if (Modifier.isAbstract(method.getModifiers())) {
      return description + " is abstract: @Idempotent takes effect on a method with a body, where the aspect is"
          + " woven; annotate the implementing method instead";
    }
    String prefix = method.getName() + "_aroundBody";
    Class<?>[] params = method.getParameterTypes();
    int skip = Modifier.isStatic(method.getModifiers()) ? 0 : 1;
    for (Method m : method.getDeclaringClass().getDeclaredMethods()) {
      if (m.getName().startsWith(prefix) && m.getName().substring(prefix.length()).chars().allMatch(Character::isDigit)
          && Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == params.length + skip + 1
          && Arrays.equals(Arrays.copyOfRange(m.getParameterTypes(), skip, skip + params.length), params)) {
        return null;
      }
    }
    return description + " is annotated with @Idempotent but was not woven, so its calls run unprotected: compile"
        + " it with ajc and idempotent-aspect as the aspect library (aspectj-maven-plugin), weave the compiled"
        + " classes with ajc, or run with the AspectJ weaver agent (-javaagent:aspectjweaver.jar), which weaves"
        + " them as they load";
  }

  /**
   * The parameter names ajc recorded for {@code method}'s join point when it wove the class (from the
   * class file's debug information, so also for classes compiled without {@code -parameters}), or null
   * when the class holds none that can be read: the names the woven calls resolve expressions with.
   */
  public static String[] wovenParameterNames(Method method) {
    for (java.lang.reflect.Field f : method.getDeclaringClass().getDeclaredFields()) {
      if (!f.getName().startsWith("ajc$tjp_") || !Modifier.isStatic(f.getModifiers())
          || !org.aspectj.lang.JoinPoint.StaticPart.class.isAssignableFrom(f.getType())) {
        continue;
      }
      try {
        f.setAccessible(true);
        Object part = f.get(null);
        if (part instanceof org.aspectj.lang.JoinPoint.StaticPart sp
            && sp.getSignature() instanceof org.aspectj.lang.reflect.MethodSignature ms
            && method.equals(ms.getMethod())) {
          return ms.getParameterNames();
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null; // a class in a module that does not open its package: reflection names then
      }
    }
    return null;
  }

  /** Why a value declared as {@code type} cannot be part of a payload, or null. */
  private static String refusal(Class<?> type, boolean named) {
    String infrastructure = ArgumentTypes.infrastructure(type);
    if (infrastructure != null) {
      return named ? namedInfrastructure(type.getName(), infrastructure) : null;
    }
    String none = ArgumentTypes.noValueIdentity(type);
    if (none == null) {
      none = CanonicalEncoder.declaredRefusal(type);
    }
    return none == null ? null : refused(none);
  }

  static String namedInfrastructure(String typeName, String infrastructure) {
    return "names a " + typeName + ", infrastructure (" + infrastructure + ") rather than a value;"
        + " it is left out of the payload by default, so do not name it";
  }

  static String refused(String why) {
    return "is refused: " + why;
  }

  static String payloadProblem(String description, List<String> problems) {
    return "The payload of " + description + " cannot be fingerprinted: " + String.join("; ", problems)
        + ". Name the values that identify a call with @Idempotent(payload = ...) or set checkPayload = false";
  }

  public CallPlan call() {
    return call;
  }

  public Object execute(IdempotencyEngine engine, Object[] args, Invocation invocation) throws Throwable {
    if (!engine.settings().enabled()) {
      return engine.execute(call, null, null, null, invocation);
    }
    String k;
    String s;
    Object[] values = null;
    try {
      k = evaluate(key, args, "key");
      s = scope == null ? null : evaluate(scope, args, "scope");
      if (call.checkPayload) {
        if (payload != null) {
          values = new Object[payload.length];
          for (int i = 0; i < payload.length; i++) {
            values[i] = evaluateValue(payload[i], args);
          }
        } else if (fingerprinted != null) {
          values = new Object[fingerprinted.length];
          for (int i = 0; i < fingerprinted.length; i++) {
            values[i] = args[fingerprinted[i]];
          }
        } else {
          values = args;
        }
      }
    } catch (RuntimeException | Error e) {
      IdempotencyEngine.refusedBeforeTheEngine(); // a key, scope or payload expression that throws
      throw e;
    }
    if (call.shape == CallPlan.ResultShape.MONO) {
      Object[] fingerprintedValues = values;
      return MonoCalls.method(engine, call, k, s, values, invocation,
          e -> e instanceof FingerprintException f ? fingerprintError(f, fingerprintedValues) : e);
    }
    try {
      return engine.execute(call, k, s, values, invocation);
    } catch (FingerprintException e) {
      throw fingerprintError(e, values);
    }
  }

  /** A value that cannot be fingerprinted: named by its place in the annotation when it is one of {@code values}. */
  private RuntimeException fingerprintError(FingerprintException e, Object[] values) {
    if (e.isAbout(values)) {
      int i = e.argumentIndex();
      return e.toConfigurationError(call.description, labels[i], roots[i], "@Idempotent(payload = ...)");
    }
    return e;
  }

  private String evaluate(Expression e, Object[] args, String attribute) {
    try {
      return e.evaluateString(args);
    } catch (Expression.IdentityTextException x) {
      throw identityText(e, attribute, x);
    } catch (Throwable t) {
      throw new IdempotencyKeyException(
          "Evaluating @Idempotent(" + attribute + " = \"" + e.source() + "\") of " + call.description
              + " threw " + t.getClass().getName() + "; the method did not run", t);
    }
  }

  private Object evaluateValue(Expression e, Object[] args) {
    try {
      return e.evaluate(args);
    } catch (Expression.IdentityTextException x) {
      throw identityText(e, "payload", x);
    } catch (Throwable t) {
      throw new IdempotencyKeyException(
          "Evaluating @Idempotent(payload = \"" + e.source() + "\") of " + call.description + " threw "
              + t.getClass().getName() + "; the method did not run", t);
    }
  }

  private IdempotencyConfigurationException identityText(Expression e, String attribute,
      Expression.IdentityTextException x) {
    return new IdempotencyConfigurationException(
        "@Idempotent(" + attribute + " = \"" + e.source() + "\") of " + call.description + ": " + x.term
            + " is a " + x.type.getName() + ", which does not override toString(), so its text would be an identity"
            + " hash that differs on every call. Use a property path to a value, such as " + x.term
            + ".id; the method did not run");
  }
}
