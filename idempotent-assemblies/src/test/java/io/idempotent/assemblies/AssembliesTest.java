package io.idempotent.assemblies;

import io.idempotent.Idempotency;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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

  static Stream<Cell> wovenMethod() {
    return Cells.of(EntryPoint.WOVEN_METHOD);
  }

  static Stream<Cell> programmaticCall() {
    return Cells.of(EntryPoint.PROGRAMMATIC_CALL);
  }

  static Stream<Cell> httpFilter() {
    return Cells.of(EntryPoint.HTTP_FILTER);
  }

  static Stream<Cell> springService() {
    return Cells.of(EntryPoint.SPRING_SERVICE);
  }

  static Stream<Cell> scheduledJob() {
    return Cells.of(EntryPoint.SCHEDULED_JOB);
  }

  static Stream<Cell> eventListener() {
    return Cells.of(EntryPoint.EVENT_LISTENER);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("wovenMethod")
  void wovenMethod_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell, EntryPointFixture.of(EntryPoint.WOVEN_METHOD));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("programmaticCall")
  void programmaticCall_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell, EntryPointFixture.of(EntryPoint.PROGRAMMATIC_CALL));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("httpFilter")
  void httpFilter_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell, EntryPointFixture.of(EntryPoint.HTTP_FILTER));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("springService")
  void springService_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell, EntryPointFixture.of(EntryPoint.SPRING_SERVICE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scheduledJob")
  void scheduledJobOnTwoInstances_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell, EntryPointFixture.of(EntryPoint.SCHEDULED_JOB));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("eventListener")
  void eventListener_inEveryCombination_keepsTheDecisionTable(Cell cell) throws Exception {
    Walk.cell(cell, EntryPointFixture.of(EntryPoint.EVENT_LISTENER));
  }
}
