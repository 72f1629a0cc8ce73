package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Type;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class JacksonResultCodecTest {

  private final JacksonResultCodec codec = JacksonResultCodec.shared();

  /** The shape of a receipt as applications write it: private final fields, a constructor, no getters. */
  static final class Receipt {
    private final String id;
    private final long cents;

    Receipt(String id, long cents) {
      this.id = id;
      this.cents = cents;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Receipt r && r.id.equals(id) && r.cents == cents;
    }

    @Override
    public int hashCode() {
      return Objects.hash(id, cents);
    }
  }

  /** Getters only: the constructor's parameter names say which property goes where. */
  public static final class Quote {
    private final String currency;
    private final List<Integer> steps;

    public Quote(String currency, List<Integer> steps) {
      this.currency = currency;
      this.steps = steps;
    }

    public String getCurrency() {
      return currency;
    }

    public List<Integer> getSteps() {
      return steps;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Quote q && Objects.equals(q.currency, currency) && Objects.equals(q.steps, steps);
    }

    @Override
    public int hashCode() {
      return Objects.hash(currency, steps);
    }
  }

  /** A no-argument constructor and setters. */
  public static final class Settings {
    private String name;
    private Map<String, String> values;

    public void setName(String name) {
      this.name = name;
    }

    public void setValues(Map<String, String> values) {
      this.values = values;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Settings s && Objects.equals(s.name, name) && Objects.equals(s.values, values);
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, values);
    }
  }

  record Transfer(String from, String to, Receipt receipt) {}

  /** Has no way to be built: two constructors, neither chosen, no no-argument one. */
  static final class Ambiguous {
    private final String id;

    Ambiguous(String id, int a) {
      this.id = id + a;
    }

    Ambiguous(String id, long b) {
      this.id = id + b;
    }
  }

  /** Its constructor parameter is named after nothing it writes: the value would come back null. */
  public static final class Renamed {
    private final String currency;

    public Renamed(String code) {
      this.currency = code;
    }

    public String getCurrency() {
      return currency;
    }
  }

  /** Like {@link Renamed} with two parameters: built from properties, one of which it never writes. */
  public static final class Scaled {
    private final String currency;
    private final int scale;

    public Scaled(String code, int scale) {
      this.currency = code;
      this.scale = scale;
    }

    public String getCurrency() {
      return currency;
    }

    public int getScale() {
      return scale;
    }
  }

  interface Priced {
    long cents();
  }

  static final class Basket {
    private final Priced item;

    Basket(Priced item) {
      this.item = item;
    }
  }

  // declared types with generics, read from these fields
  static List<Priced> listOfPriced;
  static Optional<Ambiguous> optionalAmbiguous;
  static Map<String, Receipt> mapOfReceipts;
  static List<Transfer> transfers;

  private static Type typeOf(String field) throws NoSuchFieldException {
    return JacksonResultCodecTest.class.getDeclaredField(field).getGenericType();
  }

  private Object roundTrip(Object value, Type type) {
    return codec.decode(codec.encode(value, type), type);
  }

  @Test
  void roundTrip_privateFinalFieldsWithoutGetters_isEqual() {
    Receipt r = new Receipt("r-1", 1250);
    assertThat(codec.encode(r, Receipt.class)).isEqualTo("{\"id\":\"r-1\",\"cents\":1250}");
    assertThat(roundTrip(r, Receipt.class)).isEqualTo(r);
  }

  @Test
  void roundTrip_gettersOnlySettersAndRecords_areEqual() {
    List<Integer> steps = new ArrayList<>();
    steps.add(1);
    steps.add(null);
    Settings s = new Settings();
    s.setName("n");
    s.setValues(new java.util.HashMap<>(Map.of("a", "b")));
    assertThat(roundTrip(new Quote("EUR", steps), Quote.class)).isEqualTo(new Quote("EUR", steps));
    assertThat(roundTrip(s, Settings.class)).isEqualTo(s);
    Transfer t = new Transfer("a", null, new Receipt("x", 2));
    assertThat(roundTrip(t, Transfer.class)).isEqualTo(t);
  }

  @Test
  void roundTrip_zonedDateTime_keepsItsZoneId() {
    ZonedDateTime paris = ZonedDateTime.of(2026, 7, 1, 9, 30, 0, 0, ZoneId.of("Europe/Paris"));
    assertThat(codec.encode(paris, ZonedDateTime.class)).contains("[Europe/Paris]");
    ZonedDateTime back = (ZonedDateTime) roundTrip(paris, ZonedDateTime.class);
    assertThat(back).isEqualTo(paris);
    assertThat(back.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
  }

  @Test
  void checkDecodable_valueClassesContainersAndJdkTypes_areAccepted() throws Exception {
    for (Type t : new Type[] {Receipt.class, Quote.class, Settings.class, Transfer.class, ZonedDateTime.class,
        String.class, int.class, Object.class, typeOf("mapOfReceipts"), typeOf("transfers")}) {
      assertThatCode(() -> codec.checkDecodable(t)).as(t.getTypeName()).doesNotThrowAnyException();
    }
  }

  @Test
  void checkDecodable_interface_isRefusedWithWhy() {
    assertThatThrownBy(() -> codec.checkDecodable(Priced.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Priced.class.getName())
        .hasMessageContaining("abstract or an interface");
  }

  @Test
  void checkDecodable_classWithoutCreator_isRefusedWithWhy() {
    assertThatThrownBy(() -> codec.checkDecodable(Ambiguous.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no way to be built");
  }

  @Test
  void checkDecodable_constructorParameterNamedAfterNoProperty_isRefused() {
    assertThatThrownBy(() -> codec.checkDecodable(Renamed.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[currency]")
        .hasMessageContaining("single value");
    assertThatThrownBy(() -> codec.checkDecodable(Scaled.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'code'")
        .hasMessageContaining("[currency, scale]");
  }

  @Test
  void checkDecodable_undecodableInsideContainersOrProperties_isRefused() throws Exception {
    assertThatThrownBy(() -> codec.checkDecodable(typeOf("listOfPriced"))).hasMessageContaining("interface");
    assertThatThrownBy(() -> codec.checkDecodable(typeOf("optionalAmbiguous"))).hasMessageContaining("built");
    assertThatThrownBy(() -> codec.checkDecodable(Basket.class)).hasMessageContaining("(at ")
        .hasMessageContaining(".item");
  }
}
