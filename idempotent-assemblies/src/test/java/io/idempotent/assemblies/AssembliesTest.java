package io.idempotent.assemblies;

import io.idempotent.runtime.Idempotency;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * The combination suite: for each entry point, every cell {@link Cells} walks (mode × declared effects ×
 * caller context × server setting × database × event), held against the decision table of docs/DESIGN.md §7
 * as {@link Expected} computes it. See the module's README.
 */
class AssembliesTest {

  @BeforeAll
  static void installTheCellsStore() {
    CellStore.install();
  }

  @AfterAll
  static void closeEverything() throws Exception {
    try {
      Deployments.closeAll();
    } finally {
      ShopServer.stop();
      Idempotency.uninstall();
    }
  }

  @ParameterizedTest(name = "{0}")
  @CellsOf(EntryPoint.WOVEN_METHOD)
  void wovenMethod_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell);
  }

  @ParameterizedTest(name = "{0}")
  @CellsOf(EntryPoint.PROGRAMMATIC_CALL)
  void programmaticCall_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell);
  }

  @ParameterizedTest(name = "{0}")
  @CellsOf(EntryPoint.HTTP_FILTER)
  void httpFilter_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell);
  }

  @ParameterizedTest(name = "{0}")
  @CellsOf(EntryPoint.SPRING_SERVICE)
  void springService_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell);
  }

  @ParameterizedTest(name = "{0}")
  @CellsOf(EntryPoint.SCHEDULED_JOB)
  void scheduledJobOnTwoInstances_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell);
  }

  @ParameterizedTest(name = "{0}")
  @CellsOf(EntryPoint.EVENT_LISTENER)
  void eventListener_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell);
  }
}
