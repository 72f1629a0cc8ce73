package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

class NamedSqlTest {

  @Test
  void parameters_becomePositional_inTheOrderTheyAppear_repeatsIncluded() {
    NamedSql sql = NamedSql.of("SELECT * FROM t WHERE a = :key AND b > :lease AND c = :key");
    assertThat(sql.jdbcSql()).isEqualTo("SELECT * FROM t WHERE a = ? AND b > ? AND c = ?");
    assertThat(sql.parameters()).containsExactly("key", "lease", "key");
  }

  @Test
  void quotedTextAndPostgresCasts_areNotParameters() {
    NamedSql sql = NamedSql.of("SELECT ':not', x::text, :a * INTERVAL '1 microsecond' FROM t WHERE y = :b_2");
    assertThat(sql.jdbcSql()).isEqualTo("SELECT ':not', x::text, ? * INTERVAL '1 microsecond' FROM t WHERE y = ?");
    assertThat(sql.parameters()).containsExactly("a", "b_2");
  }

  @Test
  void binding_setsEveryPositionOfTheName_andRejectsAnUnknownName() throws Exception {
    NamedSql sql = NamedSql.of("SELECT CAST(:s AS VARCHAR) || '-' || CAST(:n AS BIGINT) || '-' || CAST(:s AS VARCHAR)");
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:named");
        PreparedStatement ps = sql.prepare(c)) {
      sql.set(ps, "s", "x");
      sql.set(ps, "n", 42L);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("x-42-x");
      }
      assertThatThrownBy(() -> sql.set(ps, "missing", "v"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(":missing");
    }
  }

  @Test
  void failure_namesTheStatementAndItsSqlState_butNoValue() throws Exception {
    NamedSql sql = NamedSql.of("SELECT * FROM no_such_table WHERE k = :key");
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:named")) {
      java.sql.SQLException e = org.junit.jupiter.api.Assertions.assertThrows(java.sql.SQLException.class, () -> {
        try (PreparedStatement ps = sql.prepare(c)) {
          sql.set(ps, "key", "secret-value");
          ps.executeQuery();
        }
      });
      assertThat(sql.failure(e))
          .hasMessageContaining("no_such_table".toUpperCase())
          .hasMessageContaining("[statement:\"SELECT * FROM no_such_table WHERE k = :key\"]")
          .hasMessageContaining("SQLState " + e.getSQLState())
          .hasMessageNotContaining("secret-value")
          .hasCause(e);
    }
  }
}
