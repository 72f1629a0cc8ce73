package io.idempotent.internal;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.jsontype.impl.TypeIdResolverBase;

/**
 * The type id of a value in an open slot ({@link ObjectSlots}): its tag from the closed list, or {@link
 * ObjectSlotValues.Refused}.
 */
final class SlotTags extends TypeIdResolverBase {
  @Override
  public String idFromValue(Object value) {
    return ObjectSlotValues.tag(value);
  }

  @Override
  public String idFromValueAndType(Object value, Class<?> suggestedType) {
    return ObjectSlotValues.tag(value);
  }

  @Override
  public JsonTypeInfo.Id getMechanism() {
    return JsonTypeInfo.Id.CUSTOM;
  }
}
