package io.idempotent.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;
import io.idempotent.internal.ObjectSlotValues.Kind;
import io.idempotent.internal.ObjectSlotValues.Mapping;
import io.idempotent.internal.ObjectSlotValues.Scalar;
import io.idempotent.internal.ObjectSlotValues.Sequence;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the value of an open slot as {@link ObjectSlots} wrote it: a string, boolean,
 * {@code int} or double as plain JSON, anything else as {@code [tag, value]} with a tag of {@link
 * ObjectSlotValues}. A tag off that list, a JSON object without a tag or a number that no untagged value
 * is written as is refused: stored data never decides what class is built beyond the closed list.
 * Stateless and thread-safe.
 */
final class ObjectSlotDeserializer extends StdDeserializer<Object> {

  private static final long serialVersionUID = 1L;
  static final ObjectSlotDeserializer INSTANCE = new ObjectSlotDeserializer();

  private ObjectSlotDeserializer() {
    super(Object.class);
  }

  @Override
  public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    return read(p, ctxt);
  }

  @Override
  public Object deserializeWithType(JsonParser p, DeserializationContext ctxt, TypeDeserializer typeDeserializer)
      throws IOException {
    return read(p, ctxt); // the tags are read here whatever type handling an annotation asked for
  }

  private Object read(JsonParser p, DeserializationContext ctxt) throws IOException {
    JsonToken t = p.currentToken();
    if (t == null) {
      return ctxt.reportInputMismatch(this, "a open slot is missing");
    }
    switch (t) {
      case VALUE_NULL:
        return null;
      case VALUE_STRING:
        return p.getText();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NUMBER_INT:
        if (p.getNumberType() != JsonParser.NumberType.INT) {
          return ctxt.reportInputMismatch(this, "an untagged integer beyond int in a open slot");
        }
        return p.getIntValue();
      case VALUE_NUMBER_FLOAT:
        return p.getDoubleValue();
      case START_ARRAY:
        return tagged(p, ctxt);
      default:
        return ctxt.reportInputMismatch(this, "a open slot holds %s without a tag", t);
    }
  }

  private Object tagged(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (p.nextToken() != JsonToken.VALUE_STRING) {
      return ctxt.reportInputMismatch(this, "a value in a open slot starts with no tag");
    }
    String tag = p.getText();
    Kind kind = ObjectSlotValues.kind(tag);
    if (kind == null) {
      String shown = tag.length() > 60 ? tag.substring(0, 60) + "…" : tag;
      return ctxt.reportInputMismatch(this, "the tag \"%s\" names no type a open slot keeps", shown);
    }
    p.nextToken();
    Object value;
    try {
      if (kind instanceof Scalar s) {
        value = ctxt.readValue(p, s.type());
      } else if (kind instanceof Sequence s) {
        value = s.build().apply(elements(p, ctxt));
      } else {
        value = ((Mapping) kind).build().apply(entries(p, ctxt));
      }
    } catch (RuntimeException e) {
      // a set with a repeated element, a null where the JDK's collection takes none, unsortable elements
      return ctxt.reportInputMismatch(this, "the value tagged %s cannot be rebuilt: %s", tag, e);
    }
    if (p.nextToken() != JsonToken.END_ARRAY) {
      return ctxt.reportInputMismatch(this, "the value tagged %s is followed by more than its value", tag);
    }
    return value;
  }

  private List<Object> elements(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (!p.isExpectedStartArrayToken()) {
      ctxt.reportInputMismatch(this, "a collection in a open slot is not an array");
    }
    List<Object> elements = new ArrayList<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      elements.add(read(p, ctxt));
    }
    return elements;
  }

  private Map<String, Object> entries(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (!p.isExpectedStartObjectToken()) {
      ctxt.reportInputMismatch(this, "a map in a open slot is not an object");
    }
    Map<String, Object> entries = new LinkedHashMap<>();
    for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
      p.nextToken();
      entries.put(name, read(p, ctxt));
    }
    return entries;
  }
}
