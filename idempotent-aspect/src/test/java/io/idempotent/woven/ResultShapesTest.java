package io.idempotent.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.runtime.Idempotency;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** void, null, Optional, records, generic collections, primitives and CompletionStage all replay correctly. */
class ResultShapesTest {

  private final PaymentService service = new PaymentService();

  @BeforeEach
  void install() {
    Fixture.fakeTime(); // outcomes kept as JSON: replays decode to the declared generic type
  }

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  @Test
  void genericList_replaysAsListOfRecords() {
    List<Receipt> first = service.list("k");
    List<Receipt> again = service.list("k");
    assertThat(again).isEqualTo(first).hasSize(2);
    assertThat(again.get(0)).isInstanceOf(Receipt.class);
    assertThat(service.runs("k")).isEqualTo(1);
  }

  @Test
  void genericMap_replaysAsMap() {
    assertThat(service.map("k")).isEqualTo(Map.of("a", 1, "b", 2));
    assertThat(service.map("k")).isEqualTo(Map.of("a", 1, "b", 2));
    assertThat(service.runs("k")).isEqualTo(1);
  }

  @Test
  void record_withJavaTime_replaysEqual() {
    Receipt first = service.charge("k", 5);
    assertThat(service.charge("k", 5)).isEqualTo(first);
    assertThat(first.at()).isEqualTo(Instant.parse("2026-12-02T10:15:30Z"));
  }

  @Test
  void optional_presentAndEmpty_replay() {
    assertThat(service.find("present", true)).contains(new Receipt("present", 3, Instant.EPOCH));
    assertThat(service.find("present", true)).contains(new Receipt("present", 3, Instant.EPOCH));
    assertThat(service.find("empty", false)).isEmpty();
    assertThat(service.find("empty", false)).isEmpty();
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs("present")).isEqualTo(1);
    assertThat(service.runs("empty")).isEqualTo(1);
  }

  @Test
  void nullResult_replaysNull() {
    assertThat(service.nothing("k")).isNull();
    assertThat(service.nothing("k")).isNull();
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs("k")).isEqualTo(1);
  }

  @Test
  void voidMethod_runsOnce() {
    service.record("k");
    service.record("k");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs("k")).isEqualTo(1);
  }

  @Test
  void primitive_replaysBoxedValue() {
    assertThat(service.count("k")).isEqualTo(7);
    assertThat(service.count("k")).isEqualTo(7);
    assertThat(service.runs("k")).isEqualTo(1);
  }

  @Test
  void completionStage_recordsWhenTheStageCompletes() throws Exception {
    CompletableFuture<Long> amount = new CompletableFuture<>();
    CompletionStage<Receipt> first = service.chargeAsync("a", amount);
    assertThat(first.toCompletableFuture()).isNotDone();
    // still in progress until the stage completes
    assertThatThrownBy(() -> service.chargeAsync("a", amount)).isInstanceOf(IdempotencyInProgressException.class);
    amount.complete(42L);
    assertThat(first.toCompletableFuture().get(5, TimeUnit.SECONDS).amount()).isEqualTo(42);
    CompletionStage<Receipt> replay = service.chargeAsync("a", amount);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(replay.toCompletableFuture().get(5, TimeUnit.SECONDS).amount()).isEqualTo(42);
    assertThat(service.runs("a")).isEqualTo(1);
  }

  @Test
  void completionStage_failingStage_releasesTheKey() throws Exception {
    CompletableFuture<Long> failing = new CompletableFuture<>();
    CompletionStage<Receipt> first = service.chargeAsync("b", failing);
    failing.completeExceptionally(new IllegalStateException("async failure"));
    assertThatThrownBy(() -> first.toCompletableFuture().get(5, TimeUnit.SECONDS))
        .hasRootCauseInstanceOf(IllegalStateException.class);
    CompletableFuture<Long> ok = CompletableFuture.completedFuture(7L);
    assertThat(service.chargeAsync("b", ok).toCompletableFuture().get(5, TimeUnit.SECONDS).amount()).isEqualTo(7);
    assertThat(service.runs("b")).isEqualTo(2);
  }

  @Test
  void completionStage_skippedWhileInProgress_isACompletedStageOfNull() throws Exception {
    CompletableFuture<String> gate = new CompletableFuture<>();
    CompletionStage<String> first = service.asyncJob("job", gate);
    CompletionStage<String> skipped = service.asyncJob("job", gate);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.SKIPPED);
    assertThat(skipped.toCompletableFuture().get(1, TimeUnit.SECONDS)).isNull();
    gate.complete("done");
    assertThat(first.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(service.runs("job")).isEqualTo(1);
  }

  @Test
  void optionalSkip_isEmptyOnlyWhileInProgress() {
    assertThat(service.report("d")).isEqualTo(Optional.of("report d"));
    assertThat(service.report("d")).isEqualTo(Optional.of("report d"));
  }
}
