package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** The fingerprint of plain objects: equal state gives equal fingerprints, any difference a different one. */
class FingerprintPropertiesTest {

  /** A nested plain object with a mutable set. */
  static final class Customer {
    private final String name;
    private final Set<String> labels;

    Customer(String name, Set<String> labels) {
      this.name = name;
      this.labels = labels;
    }

    Customer copy(boolean reversed) {
      return new Customer(name, labels == null ? null : new LinkedHashSet<>(ordered(new ArrayList<>(labels), reversed)));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Customer c && Objects.equals(name, c.name) && Objects.equals(labels, c.labels);
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, labels);
    }
  }

  /** Private fields of several kinds, nullable ones, mutable collections and a nested object. */
  static final class Order {
    static final int FIELDS = 8;

    private final String id;
    private final int quantity;
    private final long cents;
    private final boolean gift;
    private final Double rate;
    private final List<String> tags;
    private final Map<String, Integer> attributes;
    private final Customer customer;

    Order(String id, int quantity, long cents, boolean gift, Double rate, List<String> tags,
        Map<String, Integer> attributes, Customer customer) {
      this.id = id;
      this.quantity = quantity;
      this.cents = cents;
      this.gift = gift;
      this.rate = rate;
      this.tags = tags;
      this.attributes = attributes;
      this.customer = customer;
    }

    /** An equal order whose maps and sets were filled in another order. */
    Order copy(boolean reversed) {
      Map<String, Integer> attrs = null;
      if (attributes != null) {
        attrs = new LinkedHashMap<>();
        for (String k : ordered(new ArrayList<>(attributes.keySet()), reversed)) {
          attrs.put(k, attributes.get(k));
        }
      }
      return new Order(id, quantity, cents, gift, rate, tags == null ? null : new ArrayList<>(tags), attrs,
          customer == null ? null : customer.copy(reversed));
    }

    /** This order with field {@code field} set to a different value. */
    Order withChanged(int field) {
      return switch (field) {
        case 0 -> new Order(id == null ? "" : null, quantity, cents, gift, rate, tags, attributes, customer);
        case 1 -> new Order(id, quantity + 1, cents, gift, rate, tags, attributes, customer);
        case 2 -> new Order(id, quantity, cents ^ 1, gift, rate, tags, attributes, customer);
        case 3 -> new Order(id, quantity, cents, !gift, rate, tags, attributes, customer);
        case 4 -> new Order(id, quantity, cents, gift, rate == null ? 0.5 : null, tags, attributes, customer);
        case 5 -> {
          List<String> t = tags == null ? new ArrayList<>() : new ArrayList<>(tags);
          t.add("extra");
          yield new Order(id, quantity, cents, gift, rate, t, attributes, customer);
        }
        case 6 -> {
          Map<String, Integer> m = attributes == null ? new HashMap<>() : new HashMap<>(attributes);
          m.merge("k", 1, Integer::sum);
          yield new Order(id, quantity, cents, gift, rate, tags, m, customer);
        }
        default -> new Order(id, quantity, cents, gift, rate, tags, attributes,
            customer == null ? new Customer(null, null) : new Customer(customer.name + "!", customer.labels));
      };
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Order x && Objects.equals(id, x.id) && quantity == x.quantity && cents == x.cents
          && gift == x.gift && Objects.equals(rate, x.rate) && Objects.equals(tags, x.tags)
          && Objects.equals(attributes, x.attributes) && Objects.equals(customer, x.customer);
    }

    @Override
    public int hashCode() {
      return Objects.hash(id, quantity, cents);
    }
  }

  private static <T> List<T> ordered(List<T> items, boolean reversed) {
    if (reversed) {
      Collections.reverse(items);
    }
    return items;
  }

  private static String fp(Object o) {
    return Fingerprints.of(new Object[] {o});
  }

  @Provide
  Arbitrary<Order> orders() {
    Arbitrary<String> text = Arbitraries.strings().ofMaxLength(6).injectNull(0.2);
    Arbitrary<List<String>> tags = Arbitraries.strings().ofMaxLength(3).list().ofMaxSize(4)
        .map(l -> (List<String>) new ArrayList<>(l)).injectNull(0.2);
    Arbitrary<Map<String, Integer>> attributes = Arbitraries.maps(Arbitraries.strings().ofMaxLength(3),
        Arbitraries.integers().between(-3, 3)).ofMaxSize(4).map(m -> (Map<String, Integer>) new HashMap<>(m))
        .injectNull(0.2);
    Arbitrary<Customer> customers = Combinators.combine(text,
            Arbitraries.strings().ofMaxLength(3).set().ofMaxSize(4).injectNull(0.2))
        .as((n, l) -> new Customer(n, l == null ? null : new LinkedHashSet<>(l))).injectNull(0.2);
    Arbitrary<Double> rates = Arbitraries.doubles().between(-2, 2).ofScale(2).injectNull(0.3);
    return Combinators.combine(text, Arbitraries.integers().between(-2, 2), Arbitraries.longs().between(0, 3),
            Arbitraries.of(true, false), rates, tags, attributes, customers)
        .as(Order::new);
  }

  @Property(tries = 300)
  void equalOrders_shareAFingerprint_whateverTheIterationOrder(@ForAll("orders") Order order) {
    assertThat(fp(order.copy(true))).isEqualTo(fp(order)).isEqualTo(fp(order.copy(false)));
  }

  @Property(tries = 300)
  void ordersDifferingInAnyField_neverShareAFingerprint(
      @ForAll("orders") Order order, @ForAll @IntRange(min = 0, max = Order.FIELDS - 1) int field) {
    Order changed = order.withChanged(field);
    assertThat(changed).isNotEqualTo(order);
    assertThat(fp(changed)).isNotEqualTo(fp(order));
  }

  @Property(tries = 500)
  void anyTwoOrders_shareAFingerprint_exactlyWhenTheyAreEqual(
      @ForAll("orders") Order a, @ForAll("orders") Order b) {
    assertThat(fp(a).equals(fp(b))).isEqualTo(a.equals(b));
  }
}
