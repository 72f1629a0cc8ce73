package com.example.docs.usage;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;

/** Writes a {@link Money} as its number of cents. */
public class MoneyModule extends SimpleModule {
  private static final long serialVersionUID = 1L;

  public MoneyModule() {
    addSerializer(Money.class, new JsonSerializer<>() {
      @Override
      public void serialize(Money value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
        gen.writeNumber(value.cents());
      }
    });
    addDeserializer(Money.class, new JsonDeserializer<>() {
      @Override
      public Money deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        return new Money(p.getLongValue());
      }
    });
  }
}
