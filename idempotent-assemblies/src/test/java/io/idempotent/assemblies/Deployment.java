package io.idempotent.assemblies;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * What a group of cells runs on: the instances of the application (a second one only for the scheduled job),
 * the store's table and the ledger on the group's database, and a connection of its own that counts what was
 * committed. Closing it drops both tables and closes every pool.
 */
final class Deployment implements AutoCloseable {

  final Cell.Group group;
  /** The store's table, shared by both stores of every instance. */
  final String table;
  /** Every run of the method that writes in the database adds a row here: no unique constraint, so all count. */
  final String ledger;
  /** The name of the group's in-memory database on H2. */
  final String h2Name;
  private final Connection verifier;
  private final List<Instance> instances = new ArrayList<>();

  private Deployment(Cell.Group group, Connection verifier, String suffix) {
    this.group = group;
    this.table = "asm_" + suffix;
    this.ledger = "asm_ledger_" + suffix;
    this.h2Name = "assemblies_" + suffix;
    this.verifier = verifier;
  }

  static Deployment open(Cell.Group group) {
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    try {
      Connection verifier = group.database().connect("assemblies_" + suffix);
      verifier.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      Deployment d = new Deployment(group, verifier, suffix);
      try (Statement s = verifier.createStatement()) {
        s.execute("CREATE TABLE " + d.ledger + " (k VARCHAR(200) NOT NULL, payment VARCHAR(200) NOT NULL)");
      }
      d.instance(0);
      return d;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open " + group, e);
    }
  }

  /** Instance {@code number} (0 or 1), opened on first use. */
  synchronized Instance instance(int number) {
    while (instances.size() <= number) {
      instances.add(Instance.open(this, instances.size()));
    }
    return instances.get(number);
  }

  /** Committed ledger rows of {@code key}. */
  int ledgerRows(String key) {
    return count("SELECT COUNT(*) FROM " + ledger + " WHERE k = ?", key);
  }

  /** Committed records of the store whose key is {@code key}, whatever their namespace. */
  int records(String key) {
    return count("SELECT COUNT(*) FROM " + table + " WHERE idempotency_key LIKE ?", "%|" + key);
  }

  private int count(String sql, String value) {
    synchronized (verifier) {
      try (PreparedStatement p = verifier.prepareStatement(sql)) {
        p.setString(1, value);
        try (ResultSet r = p.executeQuery()) {
          r.next();
          return r.getInt(1);
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Override
  public void close() {
    try (verifier; Statement s = verifier.createStatement()) {
      for (Instance i : instances) {
        i.close();
      }
      s.execute("DROP TABLE " + ledger);
      s.execute("DROP TABLE " + table);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop the tables of " + group, e);
    }
  }
}
