package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table name that is a reserved word would make every statement fail with a syntax error, late and
 * obscurely: it is refused when the store is configured, with a message that names the word. So is a name
 * with SQL in it.
 */
class ReservedTableNameTest {

  static Stream<Arguments> cases() {
    return TestDatabase.all().flatMap(db -> Stream.of("order", "select", "user", "Order", "app.order", "user.records")
        .map(name -> Arguments.of(db, name)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void table_thatIsAReservedWord_isRefusedWhenConfigured(TestDatabase db, String name) {
    db.requireReachable();
    assertThatThrownBy(() -> JdbiIdempotencyStore.builder(db.jdbi()).table(name).createSchema(true).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved word")
        .hasMessageContaining("'" + name + "'");
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#all")
  void table_containingAReservedWord_isAccepted_andWorks(TestDatabase db) {
    db.requireReachable();
    for (String name : List.of("orders_idempotency", "user_records")) {
      JdbiIdempotencyStore store = JdbiIdempotencyStore.builder(db.jdbi()).table(name).createSchema(true).build();
      assertThat(store.find("k")).isEmpty();
      db.jdbi().useHandle(h -> h.execute("DROP TABLE " + name));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"t; DROP TABLE x", "idempotency_record--", "a.b.c", "1table", "", "\"quoted\"",
      "tab le", "tábla", "x'y", "a.", ".a", "x)", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
  void tableNames_withSqlInThem_areRejected(String name) {
    assertThatThrownBy(() -> JdbiIdempotencyStore.builder(TestDatabase.H2.jdbi()).table(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid table name");
  }
}
