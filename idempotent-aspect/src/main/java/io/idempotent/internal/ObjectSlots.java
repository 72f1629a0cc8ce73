package io.idempotent.internal;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.cfg.SerializerFactoryConfig;
import com.fasterxml.jackson.databind.deser.Deserializers;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanSerializerFactory;
import com.fasterxml.jackson.databind.ser.SerializerFactory;
import com.fasterxml.jackson.databind.ser.Serializers;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.util.Collection;

/**
 * Makes a result mapper keep the values of open slots as they were. An open slot is a property, record
 * component, container element, map value, or the root, declared {@code Object} (also as a wildcard or
 * type variable that Jackson resolves to it), {@code Number} or {@code Serializable}: types whose
 * declaration does not say what class to build. Its value is written with the tag of {@link
 * ObjectSlotValues} as {@code ["Long",5]} and read back by {@link ObjectSlotDeserializer}; a value whose
 * class is not on that closed list is refused when it is written, and so is a map key declared {@code
 * Object} that is no string (JSON names are strings, and such a key would come back as one).
 *
 * <p>Writing uses Jackson's type-id hook, which it consults by declared type once, when it builds the
 * serializer of a type: a type without such slots is written and read exactly as without this. The hook
 * never names a class (the ids are the closed list's tags) and builds no type deserializer: reading is
 * the slot deserializer's alone. Serializers that would write an open slot's value without
 * asking for its type id (an {@code Optional}, a converting or self-writing class) are wrapped by {@link
 * SlotGate}, through the serializer factory, so that such a value is refused too.
 */
final class ObjectSlots {

  private ObjectSlots() {}

  /** Whether a slot of {@code type} is open: its declaration does not say what class to build. */
  static boolean isOpen(JavaType type) {
    return type.isJavaLangObject() || type.hasRawClass(Number.class) || type.hasRawClass(java.io.Serializable.class);
  }

  /**
   * {@code builder} with open slots kept as they were. Call it on a new builder: it sets the serializer
   * factory, which modules added before would not be part of.
   */
  static JsonMapper.Builder install(JsonMapper.Builder builder) {
    SimpleModule module = new SimpleModule("idempotent-object-slots") {
      @Override
      public void setupModule(SetupContext context) {
        super.setupModule(context);
        context.addDeserializers(new Deserializers.Base() {
          @Override
          public JsonDeserializer<?> findBeanDeserializer(
              JavaType type, DeserializationConfig config, BeanDescription beanDesc) {
            return isOpen(type) ? ObjectSlotDeserializer.INSTANCE : null;
          }
        });
        context.addKeySerializers(new Serializers.Base() {
          @Override
          public JsonSerializer<?> findSerializer(SerializationConfig config, JavaType type, BeanDescription beanDesc) {
            return type.isJavaLangObject() ? StringKeys.INSTANCE : null;
          }
        });
      }
    };
    return builder.serializerFactory(new GatedSerializers(null)).addModule(module).setDefaultTyping(new Typing());
  }

  /** Jackson's serializer factory, with {@link SlotGate} around what it makes. */
  private static final class GatedSerializers extends BeanSerializerFactory {
    private static final long serialVersionUID = 1L;

    GatedSerializers(SerializerFactoryConfig config) {
      super(config);
    }

    @Override
    public SerializerFactory withConfig(SerializerFactoryConfig config) {
      return config == _factoryConfig ? this : new GatedSerializers(config);
    }

    @Override
    @SuppressWarnings("unchecked")
    public JsonSerializer<Object> createSerializer(SerializerProvider prov, JavaType origType)
        throws JsonMappingException {
      return (JsonSerializer<Object>) SlotGate.around(super.createSerializer(prov, origType));
    }
  }

  /** Type ids for open slots only, taken from the closed list; nothing to read them. */
  private static final class Typing extends ObjectMapper.DefaultTypeResolverBuilder {
    private static final long serialVersionUID = 1L;

    Typing() {
      // the validator allows no class at all: the ids are tags, and this builder never reads them
      super(ObjectMapper.DefaultTyping.JAVA_LANG_OBJECT, BasicPolymorphicTypeValidator.builder().build());
      init(JsonTypeInfo.Id.CUSTOM, new SlotTags());
      inclusion(JsonTypeInfo.As.WRAPPER_ARRAY);
    }

    @Override
    public boolean useForType(JavaType t) {
      return isOpen(t);
    }

    @Override
    public TypeDeserializer buildTypeDeserializer(
        DeserializationConfig config, JavaType baseType, Collection<NamedType> subtypes) {
      return null; // ObjectSlotDeserializer reads the tags itself
    }
  }

  /** Map keys declared {@code Object}: strings as they are; any other key would come back a string. */
  private static final class StringKeys extends StdSerializer<Object> {
    private static final long serialVersionUID = 1L;
    static final StringKeys INSTANCE = new StringKeys();

    private StringKeys() {
      super(Object.class);
    }

    @Override
    public void serialize(Object key, JsonGenerator gen, SerializerProvider provider) throws IOException {
      if (!(key instanceof String s)) {
        throw new ObjectSlotValues.Refused("a map key declared Object is a " + key.getClass().getName()
            + " (such keys must be strings)");
      }
      gen.writeFieldName(s);
    }
  }
}
