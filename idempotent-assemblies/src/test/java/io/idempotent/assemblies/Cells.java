package io.idempotent.assemblies;

import io.idempotent.Effects;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The cells walked: the whole product on H2; on PostgreSQL all pairs, or the whole product with
 * {@code -Didempotent.longTests=true}; on MariaDB all pairs in both runs (its whole product would add a
 * minute to the strict run). A slow setting (a method that outlasts a server timeout) is walked pairwise in
 * both runs. Cells are ordered by group, so each group's pools and contexts open once per entry point.
 */
final class Cells {

  /** The system property that walks the whole product on PostgreSQL too. */
  static final String LONG_TESTS = "idempotent.longTests";

  private static final List<Cell> WALKED = walked(Boolean.getBoolean(LONG_TESTS));

  private Cells() {}

  /** The cells of {@code entryPoint}, in walking order. */
  static Stream<Cell> of(EntryPoint entryPoint) {
    return WALKED.stream().filter(c -> c.entryPoint() == entryPoint);
  }

  static List<Cell> walked(boolean wholeProduct) {
    List<Cell> cells = new ArrayList<>();
    for (Database database : Database.values()) {
      List<Cell> product = product(database);
      List<Cell> pairs = Pairwise.cover(product, Cell::values);
      if (database == Database.H2 || (wholeProduct && database == Database.POSTGRESQL)) {
        product.stream().filter(c -> !c.setting().slow()).forEach(cells::add);
        pairs.stream().filter(c -> c.setting().slow()).forEach(cells::add);
      } else {
        cells.addAll(pairs);
      }
    }
    cells.sort(Comparator.comparing((Cell c) -> c.database()).thenComparing(Cell::mode)
        .thenComparing(Cell::setting).thenComparing(c -> c.context().transaction));
    return List.copyOf(cells);
  }

  /** Every applicable cell on {@code database}, in declaration order of the dimensions. */
  static List<Cell> product(Database database) {
    List<Cell> cells = new ArrayList<>();
    for (EntryPoint entryPoint : EntryPoint.values()) {
      for (Mode mode : Mode.values()) {
        for (Effects effects : Effects.values()) {
          for (CallerContext context : CallerContext.values()) {
            for (ServerSetting setting : ServerSetting.values()) {
              for (Event event : Event.values()) {
                Cell cell = new Cell(entryPoint, mode, effects, context, setting, database, event);
                if (cell.applicable()) {
                  cells.add(cell);
                }
              }
            }
          }
        }
      }
    }
    return cells;
  }
}
