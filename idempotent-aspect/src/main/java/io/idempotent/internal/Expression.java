package io.idempotent.internal;

import java.lang.invoke.MethodHandle;

/**
 * A compiled key expression: a sequence of terms (string literals and parameter property paths)
 * joined by {@code +}. Evaluation performs no reflective look-ups. Immutable and thread-safe.
 */
public final class Expression {

  private final String source;
  private final Term[] terms;

  Expression(String source, Term[] terms) {
    this.source = source;
    this.terms = terms;
  }

  public String source() {
    return source;
  }

  /** The value of a single-term expression, or the concatenated string; null if any part is null. */
  public Object evaluate(Object[] args) throws Throwable {
    if (terms.length == 1) {
      return terms[0].evaluate(args);
    }
    return evaluateString(args);
  }

  /** The expression's value as a string; null if any part is null. */
  public String evaluateString(Object[] args) throws Throwable {
    if (terms.length == 1) {
      Object v = terms[0].evaluate(args);
      return v == null ? null : v.toString();
    }
    StringBuilder sb = new StringBuilder(32);
    for (Term t : terms) {
      Object v = t.evaluate(args);
      if (v == null) {
        return null; // "refund:" + null must not collide with the literal "refund:null"
      }
      sb.append(v);
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return source;
  }

  /** One operand of the expression. */
  interface Term {
    Object evaluate(Object[] args) throws Throwable;
  }

  record Literal(String value) implements Term {
    @Override
    public Object evaluate(Object[] args) {
      return value;
    }
  }

  /** {@code #param.a.b}: an argument followed by compiled property accessors. */
  record ParameterPath(int index, MethodHandle[] accessors) implements Term {
    @Override
    public Object evaluate(Object[] args) throws Throwable {
      Object v = args[index];
      for (MethodHandle accessor : accessors) {
        if (v == null) {
          return null;
        }
        v = (Object) accessor.invokeExact(v);
      }
      return v;
    }
  }
}
