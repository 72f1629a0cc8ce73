package io.idempotent.runtime;

import io.idempotent.internal.IdempotencyEngine;
import io.idempotent.internal.MethodPlan;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import org.aspectj.lang.JoinPoint;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Weaves {@link io.idempotent.Idempotent} methods at compile time. Thin by design: it compiles the
 * annotation once per join point and hands {@code proceed} to the engine.
 */
@Aspect
public class IdempotentAspect {

  private final ConcurrentHashMap<JoinPoint.StaticPart, MethodPlan> plans = new ConcurrentHashMap<>();

  @Around("execution(@io.idempotent.Idempotent * *(..))")
  public Object around(ProceedingJoinPoint pjp) throws Throwable {
    JoinPoint.StaticPart site = pjp.getStaticPart();
    MethodPlan plan = plans.get(site);
    IdempotencyEngine engine;
    try {
      if (plan == null) {
        plan = plans.computeIfAbsent(site, IdempotentAspect::compile);
      }
      engine = GlobalEngine.get().engine();
    } catch (RuntimeException | Error e) {
      IdempotencyEngine.refusedBeforeTheEngine(); // a refused annotation, a configuration that cannot load
      throw e;
    }
    return plan.execute(engine, pjp.getArgs(), pjp::proceed);
  }

  private static MethodPlan compile(JoinPoint.StaticPart site) {
    MethodSignature signature = (MethodSignature) site.getSignature();
    Method method = signature.getMethod();
    return MethodPlan.compile(method, signature.getParameterNames());
  }
}
