package io.idempotent.jdbi;

import java.util.regex.Pattern;

/**
 * A validated SQL table name, optionally schema-qualified ({@code schema.table}). Only plain identifiers
 * are accepted, so the name can be put into SQL text without quoting and nothing can be injected.
 */
final class TableName {

  /** Leaves room for the {@code _expires_at_idx} suffix within PostgreSQL's 63-character identifiers. */
  static final int MAX_PART_LENGTH = 48;

  private static final Pattern PART = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0," + (MAX_PART_LENGTH - 1) + "}");

  private final String qualified;
  private final String table;

  private TableName(String qualified, String table) {
    this.qualified = qualified;
    this.table = table;
  }

  static TableName of(String name) {
    if (name == null) {
      throw new IllegalArgumentException("The table name is null");
    }
    String[] parts = name.split("\\.", -1);
    if (parts.length > 2) {
      throw invalid(name);
    }
    for (String part : parts) {
      if (!PART.matcher(part).matches()) {
        throw invalid(name);
      }
      if (ReservedWords.contains(part)) {
        // a plain identifier that cannot be invalid input, so it may be named
        throw new IllegalArgumentException("Invalid table name '" + name + "': '" + part + "' is a reserved word"
            + " in PostgreSQL, MariaDB or H2 and would make every statement of the store fail; choose"
            + " another name, e.g. '" + part + "_idempotency'");
      }
    }
    return new TableName(name, parts[parts.length - 1]);
  }

  private static IllegalArgumentException invalid(String name) {
    // the rejected text is not repeated: it may be an injection attempt and end up in logs
    return new IllegalArgumentException("Invalid table name (" + name.length() + " characters): expected an"
        + " identifier of letters, digits and underscores, not starting with a digit, at most "
        + MAX_PART_LENGTH + " characters, optionally qualified as schema.table");
  }

  /** The name as written in SQL, possibly schema-qualified. */
  String qualified() {
    return qualified;
  }

  /** The name of the purge index (unqualified: the index lives in the table's schema). */
  String purgeIndex() {
    return table + "_purge_idx";
  }

  /** {@code schema.} when the name is qualified, else empty: what qualifies an index name. */
  String schemaPrefix() {
    return qualified.substring(0, qualified.length() - table.length());
  }

  /**
   * The name of the first layout's expiry index (unqualified: the index lives in the table's schema); the
   * MariaDB table still has it.
   */
  String expiryIndex() {
    return table + "_expires_at_idx";
  }

  @Override
  public String toString() {
    return qualified;
  }
}
