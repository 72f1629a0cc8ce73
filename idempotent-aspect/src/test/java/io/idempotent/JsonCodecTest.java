package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.idempotent.runtime.JsonCodec;
import io.idempotent.spi.ResultCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** The supported way to give the result codec an application's own Jackson additions. */
class JsonCodecTest {

  /** A money type an application serializes its own way, as "12.50 EUR". */
  static final class Money {
    private final BigDecimal amount;
    private final String currency;

    Money(BigDecimal amount, String currency) {
      this.amount = amount;
      this.currency = currency;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Money m && m.amount.equals(amount) && m.currency.equals(currency);
    }

    @Override
    public int hashCode() {
      return Objects.hash(amount, currency);
    }
  }

  /** A result holding the money type in a mutable list, with a null deep inside. */
  static final class Invoice {
    private final List<Money> lines = new ArrayList<>();
    private String note;
  }

  private static SimpleModule moneyAsText() {
    return new SimpleModule()
        .addSerializer(Money.class, new JsonSerializer<>() {
          @Override
          public void serialize(Money m, JsonGenerator g, SerializerProvider p) throws IOException {
            g.writeString(m.amount.toPlainString() + " " + m.currency);
          }
        })
        .addDeserializer(Money.class, new JsonDeserializer<>() {
          @Override
          public Money deserialize(JsonParser parser, DeserializationContext c) throws IOException {
            String[] parts = parser.getValueAsString().split(" ");
            return new Money(new BigDecimal(parts[0]), parts[1]);
          }
        });
  }

  @Test
  void customizedCodec_usesTheApplicationsModule_andStillReadsOrdinaryClasses() {
    ResultCodec codec = JsonCodec.customized(b -> b.addModule(moneyAsText()));
    Invoice invoice = new Invoice();
    invoice.lines.add(new Money(new BigDecimal("12.50"), "EUR"));
    invoice.lines.add(null);

    String json = codec.encode(invoice, Invoice.class);
    assertThat(json).contains("\"12.50 EUR\"").contains("\"note\":null");
    Invoice back = (Invoice) codec.decode(json, Invoice.class);
    assertThat(back.lines).containsExactly(new Money(new BigDecimal("12.50"), "EUR"), null);
    assertThat(back.note).isNull();
  }

  @Test
  void customizedCodec_keepsTheLimitsOnWhatItReads() {
    ResultCodec codec = JsonCodec.customized(b -> b.addModule(moneyAsText()));
    // a string past the 4 MiB a recorded result may have (plain Jackson would read up to 20 million chars)
    String tooLong = "\"" + "x".repeat(4 * 1024 * 1024 + 1) + "\"";
    assertThatThrownBy(() -> codec.decode(tooLong, String.class))
        .isInstanceOf(IdempotencyResultException.class)
        .hasRootCauseInstanceOf(com.fasterxml.jackson.core.exc.StreamConstraintsException.class);
    assertThat(codec.decode("\"" + "x".repeat(1024) + "\"", String.class)).asString().hasSize(1024);
  }

  @Test
  void defaultCodec_isTheSharedOne() {
    assertThat(JsonCodec.standard()).isSameAs(JsonCodec.standard());
    assertThat(JsonCodec.standard().encode(new Money(BigDecimal.ONE, "EUR"), Money.class))
        .isEqualTo("{\"amount\":1,\"currency\":\"EUR\"}");
  }
}
