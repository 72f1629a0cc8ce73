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

  /** The declared type of the expression's value: the property path's type, or String for a concatenation. */
  Class<?> staticType() {
    return terms.length == 1 && terms[0] instanceof ParameterPath p ? p.type() : String.class;
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
      Object v = textOf(terms[0], terms[0].evaluate(args));
      return v == null ? null : v.toString();
    }
    StringBuilder sb = new StringBuilder(32);
    for (Term t : terms) {
      Object v = textOf(t, t.evaluate(args));
      if (v == null) {
        return null; // "refund:" + null must not collide with the literal "refund:null"
      }
      sb.append(v);
    }
    return sb.toString();
  }

  /** {@code v}, unless its text would be an identity hash (checked when the declared type could not tell). */
  private static Object textOf(Term t, Object v) {
    if (v != null && t instanceof ParameterPath p && p.checkText() && !ValueText.hasValueText(v.getClass())) {
      throw new IdentityTextException(p.text(), v.getClass());
    }
    return v;
  }

  @Override
  public String toString() {
    return source;
  }

  /** A term's value has no text of its own: {@code toString()} would be an identity hash. */
  static final class IdentityTextException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final String term;
    final transient Class<?> type;

    IdentityTextException(String term, Class<?> type) {
      super(term, null, false, false);
      this.term = term;
      this.type = type;
    }
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

  /**
   * {@code #param.a.b}: an argument followed by compiled property accessors. {@code type} is the
   * declared type of the result; {@code checkText} asks for its runtime class to be checked when
   * the value is used as text and the declared type could not tell whether it has a value text.
   */
  @SuppressWarnings("ArrayRecordComponent") // built once per method, never compared
  record ParameterPath(int index, MethodHandle[] accessors, Class<?> type, String text, boolean checkText)
      implements Term {
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
