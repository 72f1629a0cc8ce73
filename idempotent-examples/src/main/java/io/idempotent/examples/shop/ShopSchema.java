package io.idempotent.examples.shop;

import org.jdbi.v3.core.Jdbi;

/**
 * The shop's own tables, next to the idempotency records; the SQL runs on H2 and PostgreSQL alike.
 * Stateless; each method runs on a handle of its own.
 */
public final class ShopSchema {

  private ShopSchema() {}

  /** Creates the tables unless they exist. */
  public static void create(Jdbi jdbi) {
    jdbi.useHandle(h -> {
      h.execute("CREATE TABLE IF NOT EXISTS shop_order ("
          + "id VARCHAR(100) NOT NULL PRIMARY KEY, status VARCHAR(16) NOT NULL)");
      h.execute("CREATE TABLE IF NOT EXISTS shop_ledger ("
          + "settled_day DATE NOT NULL, instance VARCHAR(40) NOT NULL, amount_cents BIGINT NOT NULL)");
    });
  }

  /** Deletes every row of the shop's tables. */
  public static void clear(Jdbi jdbi) {
    jdbi.useHandle(h -> {
      h.execute("DELETE FROM shop_order");
      h.execute("DELETE FROM shop_ledger");
    });
  }
}
