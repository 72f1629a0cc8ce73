package io.idempotent.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.internal.Expression;
import io.idempotent.internal.ExpressionParser;
import io.idempotent.internal.MethodSignatureInfo;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The key expression parser on hostile input: any string either compiles, or fails with an {@link
 * IdempotencyConfigurationException} that names the method and a position inside the input; no other
 * exception ever escapes. Well-formed expressions compile and evaluate to what their model says.
 */
class ExpressionParserProperties {

  record Customer(String name) {}

  record Order(String id, Customer customer, int quantity) {}

  private static final MethodSignatureInfo SIGNATURE = new MethodSignatureInfo("Shop.place(String, Order, Object)",
      new String[] {"orderId", "order", "note"}, new Class<?>[] {String.class, Order.class, Object.class});
  private static final Object[] ARGS = {"o-1", new Order("id-7", new Customer("Zoë"), 3), "a note"};
  private static final Pattern POSITION = Pattern.compile(" at position (\\d+)\n");

  /** path expression → its value for ARGS */
  private static final List<List<String>> PATHS = List.of(
      List.of("#orderId", "o-1"), List.of("#p0", "o-1"), List.of("#a0", "o-1"), List.of("#order.id", "id-7"),
      List.of("#p1.id", "id-7"), List.of("#order.customer.name", "Zoë"), List.of("#a1.customer.name", "Zoë"),
      List.of("#order.quantity", "3"), List.of("#note", "a note"), List.of("#p2", "a note"));

  private static final AtomicLong TRIED = new AtomicLong();
  private static final AtomicLong COMPILED = new AtomicLong();
  private static final AtomicLong REJECTED = new AtomicLong();

  @Property(tries = 3000)
  void anyString_compilesOrFailsWithAPosition(@ForAll("anyText") String source) {
    check(source);
  }

  @Property(tries = 3000)
  void stringsOfTheGrammarsAlphabet_compileOrFailWithAPosition(@ForAll("alphabet") String source) {
    check(source);
  }

  @Property(tries = 3000)
  void sequencesOfTokens_compileOrFailWithAPosition(@ForAll("tokens") String source) {
    check(source);
  }

  @Property(tries = 1500)
  void wellFormedExpressions_compileAndEvaluateToTheirModel(@ForAll("wellFormed") List<String> model)
      throws Throwable {
    String source = model.get(0);
    TRIED.incrementAndGet();
    Expression e = ExpressionParser.compile(source, "key", SIGNATURE);
    COMPILED.incrementAndGet();
    assertThat(e.evaluateString(ARGS)).isEqualTo(model.get(1));
  }

  private static void check(String source) {
    TRIED.incrementAndGet();
    Expression compiled;
    try {
      compiled = ExpressionParser.compile(source, "key", SIGNATURE);
    } catch (IdempotencyConfigurationException e) {
      REJECTED.incrementAndGet();
      String message = e.getMessage();
      Matcher m = POSITION.matcher(message);
      assertThat(m.find()).as("a position in: %s", message).isTrue();
      assertThat(Integer.parseInt(m.group(1))).isBetween(0, source.length());
      assertThat(message).contains("Shop.place").contains("@Idempotent(key)");
      // the rejected text is echoed for debugging, but never with raw control characters (log injection)
      assertThat(message.replace("\n", "").chars().noneMatch(Character::isISOControl))
          .as("no raw control character in: %s", message).isTrue();
      return;
    }
    COMPILED.incrementAndGet();
    assertThat(compiled.source()).isEqualTo(source);
  }

  @Provide
  Arbitrary<String> anyText() {
    return Arbitraries.strings().all().ofMaxLength(60);
  }

  @Provide
  Arbitrary<String> alphabet() {
    return Arbitraries.strings()
        .withChars("#'+. \t\n\r\u0000\u0001\u001b\u007f\u2028\u00a0_$é")
        .withCharRange('a', 'e')
        .withChars("opqrOPQR")
        .withCharRange('0', '9')
        .ofMaxLength(40);
  }

  @Provide
  Arbitrary<String> tokens() {
    return Arbitraries.of("#orderId", "#order", "#note", "#p0", "#p1", "#p2", "#p3", "#a0", "#a9",
            "#p99999999999999999999", "#p-1", ".id", ".customer", ".name", ".quantity", ".missing", ".class",
            ".", "#", "'", "''", "'lit'", "'it''s'", "'\u0000'", "+", " + ", "++", " ", "\t", "\u0000", "x",
            "#unknown", "'unterminated", "#order..id", "#orderId.", "#\u00e9", "#_", "#$")
        .list()
        .ofMaxSize(8)
        .map(parts -> String.join("", parts));
  }

  /** [source, expected value] of an expression built from the grammar. */
  @Provide
  Arbitrary<List<String>> wellFormed() {
    Arbitrary<List<String>> literal = Arbitraries.strings().all().ofMaxLength(12)
        .map(s -> List.of("'" + s.replace("'", "''") + "'", s));
    Arbitrary<List<String>> path = Arbitraries.of(PATHS);
    Arbitrary<List<String>> term = Arbitraries.oneOf(literal, path);
    Arbitrary<String> space = Arbitraries.of("", " ", "  ", "\t", " \n ");
    return Combinators.combine(term.list().ofMinSize(1).ofMaxSize(5), space.list().ofSize(12))
        .as((terms, spaces) -> {
          StringBuilder source = new StringBuilder(spaces.get(0));
          StringBuilder value = new StringBuilder();
          for (int i = 0; i < terms.size(); i++) {
            if (i > 0) {
              source.append(spaces.get(2 * i - 1)).append('+').append(spaces.get(2 * i));
            }
            source.append(terms.get(i).get(0));
            value.append(terms.get(i).get(1));
          }
          return List.of(source.append(spaces.get(11)).toString(), value.toString());
        });
  }

  @AfterContainer
  static void report() {
    Figures.of("ExpressionParserProperties")
        .set("badInputs", TRIED.get())
        .set("executions", 0)
        .set("compiled", COMPILED.get())
        .set("rejectedWithPosition", REJECTED.get())
        .report();
  }
}
