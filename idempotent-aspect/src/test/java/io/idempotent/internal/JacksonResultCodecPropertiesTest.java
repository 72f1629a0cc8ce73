package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** For ordinary value classes, whatever their contents, decode(encode(x)) equals x. */
class JacksonResultCodecPropertiesTest {

  private final JacksonResultCodec codec = JacksonResultCodec.shared();

  /** Private final fields, a constructor with parameter names, no getters. */
  static final class Address {
    private final String street;
    private final Integer floor;

    Address(String street, Integer floor) {
      this.street = street;
      this.floor = floor;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Address a && Objects.equals(a.street, street) && Objects.equals(a.floor, floor);
    }

    @Override
    public int hashCode() {
      return Objects.hash(street, floor);
    }

    @Override
    public String toString() {
      return "Address[" + street + ", " + floor + "]";
    }
  }

  /** Nested objects, nullable fields, a mutable list and map, a primitive, decimals and times. */
  static final class Customer {
    private final String name;
    private final long id;
    private final Address home;
    private final List<Address> previous;
    private final Map<String, List<Integer>> scores;
    private final BigDecimal balance;
    private final ZonedDateTime since;
    private final Instant seen;
    private final boolean active;

    Customer(String name, long id, Address home, List<Address> previous, Map<String, List<Integer>> scores,
        BigDecimal balance, ZonedDateTime since, Instant seen, boolean active) {
      this.name = name;
      this.id = id;
      this.home = home;
      this.previous = previous;
      this.scores = scores;
      this.balance = balance;
      this.since = since;
      this.seen = seen;
      this.active = active;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Customer c && Objects.equals(c.name, name) && c.id == id && Objects.equals(c.home, home)
          && Objects.equals(c.previous, previous) && Objects.equals(c.scores, scores)
          && Objects.equals(c.balance, balance) && Objects.equals(c.since, since) && Objects.equals(c.seen, seen)
          && c.active == active;
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, id);
    }

    @Override
    public String toString() {
      return "Customer[" + name + ", " + id + ", " + home + ", " + previous + ", " + scores + ", " + balance + ", "
          + since + ", " + seen + ", " + active + "]";
    }
  }

  @Property(tries = 300)
  void decodeOfEncode_valueClass_isEqual(@ForAll("customers") Customer c) {
    String json = codec.encode(c, Customer.class);
    assertThat(codec.decode(json, Customer.class)).isEqualTo(c);
  }

  @Provide
  Arbitrary<Customer> customers() {
    Arbitrary<String> text = Arbitraries.strings().ofMaxLength(12).injectNull(0.1);
    Arbitrary<Address> address = Combinators.combine(text, Arbitraries.integers().injectNull(0.2))
        .as(Address::new).injectNull(0.2);
    Arbitrary<List<Address>> addresses = address.list().ofMaxSize(4)
        .map(l -> (List<Address>) new ArrayList<>(l)).injectNull(0.1);
    Arbitrary<Map<String, List<Integer>>> scores = Arbitraries.maps(
            Arbitraries.strings().alpha().ofMaxLength(6),
            Arbitraries.integers().injectNull(0.1).list().ofMaxSize(3).map(l -> (List<Integer>) new ArrayList<>(l))
                .injectNull(0.1))
        .ofMaxSize(3).map(m -> (Map<String, List<Integer>>) new HashMap<>(m)).injectNull(0.1);
    Arbitrary<BigDecimal> balance = Arbitraries.bigDecimals().between(new BigDecimal("-1e9"), new BigDecimal("1e9"))
        .ofScale(2).injectNull(0.1);
    Arbitrary<ZoneId> zone = Arbitraries.of("UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata")
        .map(ZoneId::of);
    Arbitrary<Instant> instant = Arbitraries.longs().between(-2_000_000_000L, 4_000_000_000L)
        .flatMap(s -> Arbitraries.integers().between(0, 999_999_999).map(n -> Instant.ofEpochSecond(s, n)));
    Arbitrary<ZonedDateTime> since = Combinators.combine(instant, zone).as(ZonedDateTime::ofInstant).injectNull(0.1);
    return Combinators.combine(
            text, Arbitraries.longs(), address, addresses, scores, balance, since, instant.injectNull(0.1))
        .flatAs((name, id, home, previous, s, b, z, seen) -> Arbitraries.of(true, false)
            .map(active -> new Customer(name, id, home, previous, s, b, z, seen, active)));
  }
}
