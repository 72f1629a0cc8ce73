package io.idempotent.assemblies;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The cells the suite walks: the whole product on H2, every pair on the servers, in the same order each time. */
class CellsTest {

  @Test
  void pairwiseCover_ofEveryServer_holdsEveryPairOfValuesThatSomeApplicableCellHolds() {
    for (Database database : List.of(Database.POSTGRESQL, Database.MARIADB)) {
      List<Cell> product = Cells.product(database);
      List<Cell> cover = Pairwise.cover(product, Cell::values);
      assertThat(pairs(cover)).as("pairs on %s", database).isEqualTo(pairs(product));
      assertThat(cover).as("the cover on %s", database).hasSizeLessThan(product.size() / 50);
    }
  }

  @Test
  void walkedCells_areTheSameInTheSameOrderEveryTime() {
    assertThat(Cells.walked(false)).isEqualTo(Cells.walked(false));
  }

  @Test
  void walkedCells_holdTheWholeProductOnH2_andTheLongRunHoldsItOnPostgres() {
    List<Cell> normal = Cells.walked(false);
    List<Cell> whole = Cells.walked(true);
    assertThat(normal).filteredOn(c -> c.database() == Database.H2).hasSameSizeAs(Cells.product(Database.H2));
    long fast = Cells.product(Database.POSTGRESQL).stream().filter(c -> !c.setting().slow()).count();
    assertThat(whole).filteredOn(c -> c.database() == Database.POSTGRESQL && !c.setting().slow())
        .hasSize((int) fast);
    assertThat(whole).filteredOn(c -> c.database() == Database.MARIADB)
        .isEqualTo(normal.stream().filter(c -> c.database() == Database.MARIADB).toList());
    assertThat(whole).as("a slow setting is walked pairwise only, without a caller's transaction")
        .filteredOn(c -> c.setting().slow())
        .isEqualTo(normal.stream().filter(c -> c.setting().slow()).toList())
        .allMatch(c -> c.context() == CallerContext.NONE);
  }

  @Test
  void cellNames_readAsASentence() {
    Cell cell = new Cell(EntryPoint.HTTP_FILTER, Mode.JOINED, io.idempotent.Effects.EXTERNAL,
        CallerContext.SPRING_TRANSACTION, ServerSetting.SERIALIZABLE, Database.POSTGRESQL, Event.ROLLBACK_AFTER_RETURN);
    assertThat(cell).hasToString(
        "filter × JOINED × EXTERNAL × Spring transaction × SERIALIZABLE × PostgreSQL × rollback-after-return");
  }

  private static Set<List<Object>> pairs(List<Cell> cells) {
    Set<List<Object>> pairs = new HashSet<>();
    for (Cell cell : cells) {
      List<Object> values = cell.values();
      for (int i = 0; i < values.size(); i++) {
        for (int j = i + 1; j < values.size(); j++) {
          pairs.add(List.of(i, values.get(i), j, values.get(j)));
        }
      }
    }
    return pairs;
  }
}
