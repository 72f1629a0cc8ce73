package io.idempotent.examples.shop;

import java.time.LocalDate;
import java.util.Collection;
import java.util.List;
import org.jdbi.v3.core.Jdbi;

/**
 * The settlement ledger, a table in the shop's database ({@code shop_ledger}). It has no unique
 * constraint on the day on purpose: a settlement that ran twice would show as two rows. Thread-safe.
 */
public final class Ledger {

  private final Jdbi jdbi;

  public Ledger(Jdbi jdbi) {
    this.jdbi = jdbi;
  }

  /** Writes one settlement row. */
  public void record(LocalDate day, String instance, long amountCents) {
    jdbi.useHandle(h -> h.createUpdate(
            "INSERT INTO shop_ledger (settled_day, instance, amount_cents) VALUES (:day, :instance, :amount)")
        .bind("day", day).bind("instance", instance).bind("amount", amountCents).execute());
  }

  /** Settlement rows for {@code day}. */
  public int rowsFor(LocalDate day) {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM shop_ledger WHERE settled_day = :day")
        .bind("day", day).mapTo(Integer.class).one());
  }

  /** Settlement rows written by any of {@code instances}. */
  public int rowsWrittenBy(Collection<String> instances) {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM shop_ledger WHERE instance IN (<instances>)")
        .bindList("instances", List.copyOf(instances)).mapTo(Integer.class).one());
  }

  /** All settlement rows. */
  public int rows() {
    return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM shop_ledger").mapTo(Integer.class).one());
  }
}
