package io.idempotent.assemblies;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.Effects;
import io.idempotent.jdbi.TransactionMode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Expected} against the decision table of docs/DESIGN.md §7, written out here a second time as the
 * document has it: one row per caller context, one column per way a call is taken.
 */
class ExpectedTest {

  /** The document's columns: undeclared in the default modes, transactional (or undeclared joined), external. */
  private static final Map<String, Expected.Recording> CELLS = Map.of(
      "on its own", Expected.Recording.ON_ITS_OWN,
      "refused", Expected.Recording.REFUSED,
      "in that transaction", Expected.Recording.IN_THE_CALLERS_TRANSACTION);

  @ParameterizedTest(name = "{0}: {1} | {2} | {3}")
  @CsvSource({
      "NONE,               on its own, refused,             on its own",
      "SPRING_TRANSACTION, refused,    in that transaction, on its own",
      "JDBI_TRANSACTION,   refused,    in that transaction, on its own",
      "REQUIRES_NEW,       refused,    in that transaction, on its own",
      "NESTED,             refused,    in that transaction, on its own"})
  void everyModeAndDeclaration_inEachContext_isRecordedAsTheTableSays(CallerContext context, String undeclared,
      String transactional, String external) {
    for (Mode mode : Mode.values()) {
      for (Effects effects : Effects.values()) {
        String column = effects == Effects.EXTERNAL ? external
            : effects == Effects.TRANSACTIONAL || mode.takesUndeclaredAsTransactional ? transactional : undeclared;
        Cell cell = new Cell(EntryPoint.WOVEN_METHOD, mode, effects, context, ServerSetting.READ_COMMITTED,
            Database.H2, Event.NONE);
        assertThat(Expected.of(cell).recording()).as("%s", cell).isEqualTo(CELLS.get(column));
      }
    }
  }

  @Test
  void aRollbackAfterTheCallReturned_takesTheOutcomeOnlyWhenItWasWrittenInTheTransactionThatRolledBack() {
    assertThat(expected(Mode.JOINED, Effects.UNDECLARED, CallerContext.SPRING_TRANSACTION).retryRunsAgain()).isTrue();
    assertThat(expected(Mode.INDEPENDENT, Effects.TRANSACTIONAL, CallerContext.NESTED).retryRunsAgain()).isTrue();
    assertThat(expected(Mode.JOINED, Effects.TRANSACTIONAL, CallerContext.REQUIRES_NEW).retryRunsAgain())
        .as("the outer transaction rolls back; the inner one had committed the outcome").isFalse();
    assertThat(expected(Mode.JOINED, Effects.EXTERNAL, CallerContext.JDBI_TRANSACTION).retryRunsAgain()).isFalse();
  }

  @Test
  void aCallRecordedOnItsOwnInsideATransaction_needsASecondConnection() {
    assertThat(expected(Mode.INDEPENDENT, Effects.EXTERNAL, CallerContext.SPRING_TRANSACTION).connectionsPerCaller())
        .isEqualTo(2);
    assertThat(expected(Mode.INDEPENDENT, Effects.TRANSACTIONAL, CallerContext.SPRING_TRANSACTION)
        .connectionsPerCaller()).as("written in the caller's transaction: none of its own").isEqualTo(1);
    assertThat(expected(Mode.TRANSACTION_SCOPED, Effects.EXTERNAL, CallerContext.REQUIRES_NEW).connectionsPerCaller())
        .isEqualTo(3);
    assertThat(expected(Mode.INDEPENDENT, Effects.UNDECLARED, CallerContext.NONE).connectionsPerCaller()).isEqualTo(1);
  }

  @Test
  void everyTransactionModeOfTheStore_isWalked() {
    for (TransactionMode mode : TransactionMode.values()) {
      assertThat(Mode.of(mode).transactionMode).isEqualTo(mode);
    }
  }

  private static Expected expected(Mode mode, Effects effects, CallerContext context) {
    return Expected.of(new Cell(EntryPoint.WOVEN_METHOD, mode, effects, context, ServerSetting.READ_COMMITTED,
        Database.H2, Event.NONE));
  }
}
