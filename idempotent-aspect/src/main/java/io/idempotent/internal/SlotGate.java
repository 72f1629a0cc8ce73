package io.idempotent.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import com.fasterxml.jackson.databind.jsontype.TypeSerializer;
import com.fasterxml.jackson.databind.ser.ContextualSerializer;
import com.fasterxml.jackson.databind.ser.ResolvableSerializer;
import com.fasterxml.jackson.databind.ser.std.JsonValueSerializer;
import com.fasterxml.jackson.databind.ser.std.ReferenceTypeSerializer;
import com.fasterxml.jackson.databind.ser.std.SerializableSerializer;
import com.fasterxml.jackson.databind.ser.std.StdDelegatingSerializer;
import com.fasterxml.jackson.databind.util.NameTransformer;
import java.io.IOException;

/**
 * Refuses, in an open slot ({@link ObjectSlots}), a value whose serializer would write it without asking
 * for its type id, so that {@link ObjectSlotValues#tag} never sees it: a reference ({@code Optional},
 * {@code AtomicReference}: written as its content, or as null when empty), a class written through a
 * converter, as the value of a {@code @JsonValue} method (as null when that is null), or by itself
 * ({@code JsonSerializable}). Everywhere else the serializer it
 * wraps does all the work. Thread-safe when the wrapped serializer is.
 */
final class SlotGate extends JsonSerializer<Object> implements ContextualSerializer, ResolvableSerializer {

  private final JsonSerializer<Object> delegate;

  @SuppressWarnings("unchecked")
  private SlotGate(JsonSerializer<?> delegate) {
    this.delegate = (JsonSerializer<Object>) delegate;
  }

  /** {@code serializer}, behind a gate when it is one that bypasses type ids. */
  static JsonSerializer<?> around(JsonSerializer<?> serializer) {
    boolean bypasses = serializer instanceof ReferenceTypeSerializer<?>
        || serializer instanceof StdDelegatingSerializer
        || serializer instanceof SerializableSerializer
        || serializer instanceof JsonValueSerializer;
    return bypasses ? new SlotGate(serializer) : serializer;
  }

  @Override
  public void serializeWithType(Object value, JsonGenerator gen, SerializerProvider provider, TypeSerializer typeSer)
      throws IOException {
    if (typeSer.getTypeIdResolver() instanceof SlotTags) {
      ObjectSlotValues.tag(value); // refuses: none of these serializers writes a value of the closed list
    }
    delegate.serializeWithType(value, gen, provider, typeSer);
  }

  @Override
  public void serialize(Object value, JsonGenerator gen, SerializerProvider provider) throws IOException {
    delegate.serialize(value, gen, provider);
  }

  @Override
  public JsonSerializer<?> createContextual(SerializerProvider prov, BeanProperty property)
      throws JsonMappingException {
    if (!(delegate instanceof ContextualSerializer c)) {
      return this;
    }
    JsonSerializer<?> contextual = c.createContextual(prov, property);
    return contextual == delegate ? this : around(contextual);
  }

  @Override
  public void resolve(SerializerProvider provider) throws JsonMappingException {
    if (delegate instanceof ResolvableSerializer r) {
      r.resolve(provider);
    }
  }

  @Override
  public JsonSerializer<Object> unwrappingSerializer(NameTransformer unwrapper) {
    JsonSerializer<Object> unwrapping = delegate.unwrappingSerializer(unwrapper);
    return unwrapping == delegate ? this : unwrapping;
  }

  @Override
  public boolean isUnwrappingSerializer() {
    return delegate.isUnwrappingSerializer();
  }

  @Override
  public boolean isEmpty(SerializerProvider provider, Object value) {
    return delegate.isEmpty(provider, value);
  }

  @Override
  public boolean usesObjectId() {
    return delegate.usesObjectId();
  }

  @Override
  public Class<Object> handledType() {
    return delegate.handledType();
  }

  @Override
  public JsonSerializer<?> getDelegatee() {
    return delegate;
  }

  @Override
  public void acceptJsonFormatVisitor(JsonFormatVisitorWrapper visitor, com.fasterxml.jackson.databind.JavaType type)
      throws JsonMappingException {
    delegate.acceptJsonFormatVisitor(visitor, type);
  }
}
