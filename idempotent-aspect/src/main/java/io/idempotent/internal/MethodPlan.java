package io.idempotent.internal;

import io.idempotent.Idempotent;
import io.idempotent.IdempotencyKeyException;
import java.lang.reflect.Method;

/**
 * A compiled {@link Idempotent} method: its {@link CallPlan} and its key, scope and payload
 * expressions. Built once per method. Immutable and thread-safe.
 */
public final class MethodPlan {

  private final CallPlan call;
  private final Expression key;
  private final Expression scope;
  private final Expression[] payload;

  private MethodPlan(CallPlan call, Expression key, Expression scope, Expression[] payload) {
    this.call = call;
    this.key = key;
    this.scope = scope;
    this.payload = payload;
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
    Expression key = ExpressionParser.compile(a.key(), "key", sig);
    Expression scope = a.scope().isBlank() ? null : ExpressionParser.compile(a.scope(), "scope", sig);
    Expression[] payload = null;
    if (a.payload().length > 0) {
      payload = new Expression[a.payload().length];
      for (int i = 0; i < payload.length; i++) {
        payload[i] = ExpressionParser.compile(a.payload()[i], "payload", sig);
      }
    }
    String name = a.name().isBlank() ? method.getDeclaringClass().getName() + "." + method.getName() : a.name();
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
        method.getDeclaringClass().getClassLoader());
    return new MethodPlan(call, key, scope, payload);
  }

  public CallPlan call() {
    return call;
  }

  public Object execute(IdempotencyEngine engine, Object[] args, Invocation invocation) throws Throwable {
    if (!engine.config().enabled()) {
      return engine.execute(call, null, null, null, invocation);
    }
    String k = evaluate(key, args, "key");
    String s = scope == null ? null : evaluate(scope, args, "scope");
    Object[] values = null;
    if (call.checkPayload) {
      if (payload == null) {
        values = args;
      } else {
        values = new Object[payload.length];
        for (int i = 0; i < payload.length; i++) {
          values[i] = evaluateValue(payload[i], args);
        }
      }
    }
    return engine.execute(call, k, s, values, invocation);
  }

  private String evaluate(Expression e, Object[] args, String attribute) {
    try {
      return e.evaluateString(args);
    } catch (Throwable t) {
      throw new IdempotencyKeyException(
          "Evaluating @Idempotent(" + attribute + " = \"" + e.source() + "\") of " + call.description
              + " threw " + t.getClass().getName() + "; the method did not run");
    }
  }

  private Object evaluateValue(Expression e, Object[] args) {
    try {
      return e.evaluate(args);
    } catch (Throwable t) {
      throw new IdempotencyKeyException(
          "Evaluating @Idempotent(payload = \"" + e.source() + "\") of " + call.description + " threw "
              + t.getClass().getName() + "; the method did not run");
    }
  }
}
