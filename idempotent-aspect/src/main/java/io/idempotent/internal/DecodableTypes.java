package io.idempotent.internal;

import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.AbstractDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.SettableBeanProperty;
import com.fasterxml.jackson.databind.deser.ValueInstantiator;
import com.fasterxml.jackson.databind.ser.PropertyWriter;
import com.fasterxml.jackson.databind.ser.std.BeanSerializerBase;
import java.lang.reflect.Type;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * Decides without any data whether Jackson can build values of a type: Jackson happily writes an object
 * it cannot read back (no creator, an interface, a constructor parameter named after nothing it writes),
 * and only a retry would find out. Walks the type, the contents of its containers and the properties of
 * its beans. Thread-safe (a fresh context per check).
 */
final class DecodableTypes {

  private final DeserializationContext context;
  private final SerializerProvider serializers;
  private final Set<JavaType> seen = new HashSet<>();

  private DecodableTypes(ObjectMapper mapper) {
    DeserializationConfig config = mapper.getDeserializationConfig();
    this.context = ((DefaultDeserializationContext) mapper.getDeserializationContext())
        .createInstance(config, null, mapper.getInjectableValues());
    this.serializers = mapper.getSerializerProviderInstance();
  }

  /** Why values of {@code type} cannot be decoded, or null when they can. */
  static String problem(ObjectMapper mapper, Type type) {
    DecodableTypes check = new DecodableTypes(mapper);
    JavaType root = mapper.constructType(type);
    return check.problem(root, root.toCanonical());
  }

  private String problem(JavaType type, String where) {
    if (!seen.add(type)) {
      return null;
    }
    try {
      if (type.isMapLikeType()) {
        context.findKeyDeserializer(type.getKeyType(), null);
      }
      if (type.isContainerType() || type.isReferenceType()) {
        JavaType content = type.getContentType();
        return content == null ? null : problem(content, where);
      }
      JsonDeserializer<?> d = context.findRootValueDeserializer(type);
      if (d instanceof AbstractDeserializer) {
        return describe(type, where) + " is abstract or an interface, and stored JSON never names a concrete class";
      }
      if (d instanceof BeanDeserializerBase bean) {
        ValueInstantiator creator = bean.getValueInstantiator();
        if (!creator.canInstantiate()) {
          return describe(type, where) + " has no way to be built: no no-argument constructor, no constructor"
              + " whose parameters have names (compile with -parameters) and no @JsonCreator";
        }
        Set<String> written = writtenProperties(type);
        if (written != null && !creator.canCreateUsingDefault() && !creator.canCreateFromObjectWith()
            && !creator.canCreateUsingDelegate()) {
          return describe(type, where) + " is written as an object of its properties " + written + " but can only be"
              + " built from a single value: its constructor's parameter is named after none of them";
        }
        SettableBeanProperty[] creatorProperties = creator.getFromObjectArguments(context.getConfig());
        if (creatorProperties != null) {
          for (SettableBeanProperty p : creatorProperties) {
            if (written != null && p.getInjectableValueId() == null && !written.contains(p.getName())) {
              return describe(type, where) + " takes a constructor parameter '" + p.getName() + "' that is none of"
                  + " the properties it writes " + written + ": it would come back without that value";
            }
            String problem = problem(p.getType(), where + "." + p.getName());
            if (problem != null) {
              return problem;
            }
          }
        }
        for (Iterator<SettableBeanProperty> it = bean.properties(); it.hasNext(); ) {
          SettableBeanProperty p = it.next();
          String problem = problem(p.getType(), where + "." + p.getName());
          if (problem != null) {
            return problem;
          }
        }
      }
      return null;
    } catch (JsonMappingException e) {
      return describe(type, where) + " cannot be read back: " + e.getOriginalMessage();
    }
  }

  /** The names of the properties a bean serializer writes for {@code type}, or null when it is no bean. */
  private Set<String> writtenProperties(JavaType type) throws JsonMappingException {
    JsonSerializer<Object> serializer = serializers.findValueSerializer(type);
    if (!(serializer instanceof BeanSerializerBase bean)) {
      return null;
    }
    Set<String> names = new java.util.TreeSet<>();
    for (Iterator<PropertyWriter> it = bean.properties(); it.hasNext(); ) {
      names.add(it.next().getName());
    }
    return names;
  }

  private static String describe(JavaType type, String where) {
    String name = type.toCanonical();
    return where.equals(name) ? name : name + " (at " + where + ")";
  }
}
