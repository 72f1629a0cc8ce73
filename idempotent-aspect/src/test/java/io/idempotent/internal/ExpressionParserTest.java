package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyConfigurationException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpressionParserTest {

  public record Customer(String id, Address address) {}

  public record Address(String city) {}

  public static class Bean {
    private final String code;
    public final int level;
    private final boolean active;

    Bean(String code, int level, boolean active) {
      this.code = code;
      this.level = level;
      this.active = active;
    }

    public String getCode() {
      return code;
    }

    public boolean isActive() {
      return active;
    }
  }

  private static final MethodSignatureInfo SIG = new MethodSignatureInfo(
      "com.example.Orders.place(String, Customer, Bean, List)",
      new String[] {"orderId", "customer", "bean", "items"},
      new Class<?>[] {String.class, Customer.class, Bean.class, List.class});

  private static final Object[] ARGS = {
    "o-1", new Customer("c-7", new Address("Oslo")), new Bean("B", 3, true), List.of("x", "y")
  };

  private static String eval(String expr) throws Throwable {
    return ExpressionParser.compile(expr, "key", SIG).evaluateString(ARGS);
  }

  @Test
  void compile_parameterByName() throws Throwable {
    assertThat(eval("#orderId")).isEqualTo("o-1");
  }

  @Test
  void compile_parameterByPosition_p0AndA1() throws Throwable {
    assertThat(eval("#p0")).isEqualTo("o-1");
    assertThat(eval("#a1.id")).isEqualTo("c-7");
  }

  @Test
  void compile_recordComponentPath() throws Throwable {
    assertThat(eval("#customer.address.city")).isEqualTo("Oslo");
  }

  @Test
  void compile_getterIsGetterAndPublicField() throws Throwable {
    assertThat(eval("#bean.code + ':' + #bean.active + ':' + #bean.level")).isEqualTo("B:true:3");
  }

  @Test
  void compile_accessorMethodOnInterface() throws Throwable {
    assertThat(eval("#items.size")).isEqualTo("2");
  }

  @Test
  void compile_literalsWithEscapedQuoteAndConcatenation() throws Throwable {
    assertThat(eval("'refund:' + #orderId + ':it''s'")).isEqualTo("refund:o-1:it's");
    assertThat(eval("  'a'+'b'  ")).isEqualTo("ab");
  }

  @Test
  void evaluate_nullPartMakesTheWholeKeyNull() throws Throwable {
    Object[] args = {null, new Customer(null, null), null, null};
    Expression e = ExpressionParser.compile("'refund:' + #orderId", "key", SIG);
    assertThat(e.evaluateString(args)).isNull();
    assertThat(ExpressionParser.compile("#customer.address.city", "key", SIG).evaluateString(args)).isNull();
  }

  @Test
  void evaluate_singleTermKeepsItsValueForPayloads() throws Throwable {
    assertThat(ExpressionParser.compile("#customer", "payload", SIG).evaluate(ARGS)).isSameAs(ARGS[1]);
  }

  @Test
  void compile_unknownParameter_namesMethodExpressionAndPosition() {
    assertThatThrownBy(() -> eval("'x' + #orderid"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("com.example.Orders.place")
        .hasMessageContaining("unknown parameter 'orderid'")
        .hasMessageContaining("at position 7")
        .hasMessageContaining("'x' + #orderid")
        .hasMessageContaining("[orderId, customer, bean, items]");
  }

  @Test
  void compile_unknownProperty_namesTheType() {
    assertThatThrownBy(() -> eval("#customer.name"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("no property 'name'")
        .hasMessageContaining("Customer")
        .hasMessageContaining("at position 10");
  }

  @Test
  void compile_syntaxErrors_givePositions() {
    assertThatThrownBy(() -> eval("")).hasMessageContaining("empty");
    assertThatThrownBy(() -> eval("'open")).hasMessageContaining("unterminated string literal at position 0");
    assertThatThrownBy(() -> eval("#orderId #orderId")).hasMessageContaining("expected '+' but found '#' at position 9");
    assertThatThrownBy(() -> eval("#orderId +")).hasMessageContaining("expected a term after '+' at position 10");
    assertThatThrownBy(() -> eval("#")).hasMessageContaining("expected a parameter name after '#' at position 1");
    assertThatThrownBy(() -> eval("#customer.")).hasMessageContaining("expected a property name after '.' at position 10");
    assertThatThrownBy(() -> eval("orderId")).hasMessageContaining("found 'o' at position 0");
    assertThatThrownBy(() -> eval("#p9")).hasMessageContaining("parameter index 9 is out of range");
    assertThatThrownBy(() -> eval("#p99999999999999")).hasMessageContaining("out of range");
  }

  @Test
  void compile_controlCharactersInErrors_areEscaped() {
    assertThatThrownBy(() -> eval("#orderId\u0000")).isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("\\u0000").hasMessageNotContaining("\u0000");
  }

  @Test
  void compile_keyOfAClassWithoutToString_isRefusedWithPositionAndAdvice() {
    assertThatThrownBy(() -> ExpressionParser.compile("'b:' + #bean", "key", SIG))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("@Idempotent(key) of com.example.Orders.place(String, Customer, Bean, List)")
        .hasMessageContaining("#bean is a " + Bean.class.getName()).hasMessageContaining("toString()")
        .hasMessageContaining("#bean.id").hasMessageContaining("at position 7");
    assertThatThrownBy(() -> ExpressionParser.compile("#bean", "scope", SIG))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("@Idempotent(scope)");
  }

  @Test
  void compile_valuesWithTheirOwnText_areAccepted_aLonePayloadValueIsNotText() throws Throwable {
    assertThat(eval("#customer")).isEqualTo(ARGS[1].toString());
    assertThat(eval("#bean.level + #bean.active")).isEqualTo("3true");
    assertThat(eval("#items")).isEqualTo("[x, y]");
    assertThat(ExpressionParser.compile("#bean", "payload", SIG).evaluate(ARGS)).isSameAs(ARGS[2]);
    assertThatThrownBy(() -> ExpressionParser.compile("#orderId + #bean", "payload", SIG))
        .isInstanceOf(IdempotencyConfigurationException.class).hasMessageContaining("#bean is a");
  }

  @Test
  void evaluate_interfaceTypedKeyHoldingAValueWithoutText_isRefusedAtRunTime() throws Throwable {
    MethodSignatureInfo sig = new MethodSignatureInfo("com.example.Orders.find(Object)", new String[] {"ref"},
        new Class<?>[] {Object.class});
    Expression e = ExpressionParser.compile("#ref", "key", sig);
    assertThat(e.evaluateString(new Object[] {42})).isEqualTo("42");
    assertThatThrownBy(() -> e.evaluateString(new Object[] {new int[] {1}}))
        .isInstanceOf(Expression.IdentityTextException.class);
    assertThatThrownBy(() -> e.evaluateString(new Object[] {new Bean("B", 1, false)}))
        .isInstanceOf(Expression.IdentityTextException.class);
  }
}
