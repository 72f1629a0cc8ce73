package io.idempotent.jdbi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.IdempotentMono;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

/**
 * A reactive call ({@link IdempotentMono}, a {@code Mono} method) in every transaction mode: its store calls
 * run on threads where no transaction of the caller's can be, so a call that declares nothing is recorded on
 * its own in every mode, joined ones included (docs/REACTIVE.md, "Transactions"); one that declares its
 * effects transactional has no transaction to be in, and is refused before it runs.
 */
class ReactiveCallModesTest {

  private static final Duration LONG = Duration.ofSeconds(30);

  static Stream<Arguments> modes() {
    return Stream.of(TestDatabase.H2, TestDatabase.POSTGRES).flatMap(db -> Stream.of(TransactionMode.values())
        .map(mode -> Arguments.of(db, mode)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("modes")
  void anUndeclaredReactiveCall_runsOnceAndReplays_inEveryMode(TestDatabase db, TransactionMode mode) {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(db.storeBuilder().transactionMode(mode).build()).build());
    String key = UUID.randomUUID().toString();
    AtomicInteger runs = new AtomicInteger();
    Mono<CallResult<String>> charge = IdempotentMono.execute(idempotency.call("reactive.modes", String.class)
        .key(key), () -> Mono.fromSupplier(() -> "charged #" + runs.incrementAndGet()));

    assertThat(charge.block(LONG)).isEqualTo(new CallResult<>("charged #1", CallOutcome.EXECUTED));
    assertThat(charge.block(LONG)).isEqualTo(new CallResult<>("charged #1", CallOutcome.REPLAYED));
    assertThat(runs).hasValue(1);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("modes")
  void aReactiveCallDeclaredTransactional_isRefusedBeforeItRuns_inEveryMode(TestDatabase db, TransactionMode mode) {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(db.storeBuilder().transactionMode(mode).build()).build());
    AtomicInteger runs = new AtomicInteger();
    Mono<CallResult<String>> charge = IdempotentMono.execute(idempotency.call("reactive.modes", String.class)
        .key(UUID.randomUUID().toString()).effects(Effects.TRANSACTIONAL),
        () -> Mono.fromSupplier(() -> "charged #" + runs.incrementAndGet()));

    assertThatThrownBy(() -> charge.block(LONG)).isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("no transaction open");
    assertThat(runs).hasValue(0);
  }
}
