package io.idempotent.jdbi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;

/**
 * The shipped DDL of a dialect ({@code io/idempotent/jdbi/schema-*.sql}), with the default table and
 * index names replaced by the configured ones. The same files are what teams copy into their Flyway or
 * Liquibase migrations. Every statement is {@code CREATE … IF NOT EXISTS}, so running it again is harmless.
 */
final class SchemaScript {

  static final String DEFAULT_TABLE = "idempotency_record";

  private SchemaScript() {}

  /** The statements creating {@code table} in {@code dialect}. */
  static List<String> statements(SqlDialect dialect, TableName table) {
    String ddl = read(dialect.schemaResource())
        .replaceAll("\\b" + DEFAULT_TABLE + "_expires_at_idx\\b", Matcher.quoteReplacement(table.expiryIndex()))
        .replaceAll("\\b" + DEFAULT_TABLE + "_purge_idx\\b", Matcher.quoteReplacement(table.purgeIndex()))
        .replaceAll("\\b" + DEFAULT_TABLE + "\\b", Matcher.quoteReplacement(table.qualified()));
    StringBuilder withoutComments = new StringBuilder();
    for (String line : ddl.split("\n", -1)) {
      if (!line.strip().startsWith("--")) {
        withoutComments.append(line).append('\n');
      }
    }
    List<String> out = new ArrayList<>();
    for (String statement : withoutComments.toString().split(";", -1)) {
      if (!statement.isBlank()) {
        out.add(statement.strip());
      }
    }
    return out;
  }

  private static String read(String resource) {
    try (InputStream in = SchemaScript.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + resource, e);
    }
  }
}
