package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ImmutableTypesTest {

  record Money(BigDecimal amount, String currency) {}

  record Receipt(UUID id, Money total, Instant at, DayOfWeek day, long cents, ZoneId zone) {}

  record Tagged(String name, List<String> tags) {}

  record WithArray(String name, int[] values) {}

  record Box<T>(T value, String label) {}

  record Node(String value, Node next) {}

  /** Components declared open: what they hold at run time may be a mutable list or map. */
  record Open(String name, Object value, Number amount, java.io.Serializable note) {}

  /** A plain class with a setter: its values can change. */
  static final class Counter {
    private int count;

    public void setCount(int count) {
      this.count = count;
    }
  }

  /** Declared types with their generic arguments, read back by reflection. */
  @SuppressWarnings("unused")
  private static final class Declared {
    Box<String> boxOfString;
    Box<ArrayList<String>> boxOfList;
    Box<Box<Money>> boxOfBoxOfMoney;
    Box<Counter> boxOfCounter;
    Box<?> boxOfWildcard;
    Optional<Money> optionalMoney;
    Optional<ArrayList<String>> optionalList;
    List<String> listOfString;
    Map<String, Integer> mapOfInteger;
    Box<Object> boxOfObject;
    Optional<Object> optionalObject;
    Optional<?> optionalWildcard;
  }

  private static Type declared(String field) throws NoSuchFieldException {
    return Declared.class.getDeclaredField(field).getGenericType();
  }

  @Test
  void isImmutable_valueTypesAndRecordsOfThem_areImmutable() throws Exception {
    for (Type t : List.of(String.class, int.class, Long.class, BigDecimal.class, UUID.class, Instant.class,
        DayOfWeek.class, ZoneId.class, Money.class, Receipt.class, Node.class, declared("boxOfString"),
        declared("boxOfBoxOfMoney"), declared("optionalMoney"))) {
      assertThat(ImmutableTypes.isImmutable(t)).as(t.getTypeName()).isTrue();
    }
  }

  @Test
  void isImmutable_anythingThatCanChangeOrIsNotKnown_isNotImmutable() throws Exception {
    for (Type t : List.of(Object.class, ArrayList.class, List.class, Counter.class, int[].class, Tagged.class,
        WithArray.class, Box.class, Optional.class, declared("boxOfList"), declared("boxOfCounter"),
        declared("boxOfWildcard"), declared("optionalList"), declared("listOfString"), declared("mapOfInteger"))) {
      assertThat(ImmutableTypes.isImmutable(t)).as(t.getTypeName()).isFalse();
    }
  }

  /** An open slot may hold a mutable collection at run time: never kept by reference, whatever it holds. */
  @Test
  void isImmutable_typesWithOpenSlots_areNotImmutable() throws Exception {
    for (Type t : List.of(Open.class, Number.class, java.io.Serializable.class, declared("boxOfObject"),
        declared("optionalObject"), declared("optionalWildcard"))) {
      assertThat(ImmutableTypes.isImmutable(t)).as(t.getTypeName()).isFalse();
    }
  }
}
