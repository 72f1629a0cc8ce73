package io.idempotent.reliability;

import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The side-effect table of the reliability tests: every execution of a protected method appends one
 * row. It deliberately has no unique constraint, so that a duplicate execution shows up as a second
 * row instead of being hidden by a constraint violation. Rows carry a run id, so concurrent runs on a
 * shared database stay apart. Immutable and thread-safe.
 */
public final class Ledger {

  private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

  private final String table;

  /** @param table a plain lower-case identifier (validated; it is put into SQL text) */
  public Ledger(String table) {
    if (!NAME.matcher(table).matches()) {
      throw new IllegalArgumentException("Invalid ledger table name");
    }
    this.table = table;
  }

  public String table() {
    return table;
  }

  /** Creates the table and its (non-unique) index unless they exist. */
  public void createTable(Jdbi jdbi) {
    for (int attempt = 1; ; attempt++) {
      try {
        jdbi.useHandle(h -> {
          h.execute("CREATE TABLE IF NOT EXISTS " + table + " (run_id VARCHAR(64) NOT NULL,"
              + " entry_key VARCHAR(255) NOT NULL, executor VARCHAR(200) NOT NULL)");
          h.execute("CREATE INDEX IF NOT EXISTS " + table + "_run_idx ON " + table + " (run_id, entry_key)");
        });
        return;
      } catch (RuntimeException e) {
        // two builds creating it at once race on PostgreSQL's catalog; the loser succeeds on a retry
        if (attempt >= 3) {
          throw e;
        }
      }
    }
  }

  /** Appends one row on {@code h}: inside its transaction when one is open, else committed at once. */
  public void append(Handle h, String run, String key, String executor) {
    h.createUpdate("INSERT INTO " + table + " (run_id, entry_key, executor) VALUES (:run, :key, :executor)")
        .bind("run", run)
        .bind("key", key)
        .bind("executor", executor)
        .execute();
  }

  /** Rows per key of {@code run}. */
  public Map<String, Integer> rowsPerKey(Jdbi jdbi, String run) {
    return jdbi.withHandle(h -> h.createQuery(
            "SELECT entry_key, COUNT(*) AS n FROM " + table + " WHERE run_id = :run GROUP BY entry_key")
        .bind("run", run)
        .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getInt(2)))
        .list()
        .stream()
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
  }

  /** The executor of every key of {@code run} (the last one read, if a key has several rows). */
  public Map<String, String> executors(Jdbi jdbi, String run) {
    return jdbi.withHandle(h -> h.createQuery("SELECT entry_key, executor FROM " + table + " WHERE run_id = :run")
        .bind("run", run)
        .map((rs, ctx) -> Map.entry(rs.getString(1), rs.getString(2)))
        .list()
        .stream()
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> b)));
  }

  /** All rows of {@code run}. */
  public int rows(Jdbi jdbi, String run) {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + table + " WHERE run_id = :run")
        .bind("run", run)
        .mapTo(Integer.class)
        .one());
  }
}
