package io.idempotent.micrometer;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.IdempotencyObserver.Outcome;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One observation per woven call, with its low-cardinality key values, its error and its scope. */
class CallObservationTest {

  private final TestObservationRegistry observations = TestObservationRegistry.create();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final Orders orders = new Orders();

  @AfterEach
  void tearDown() {
    Idempotency.uninstall();
  }

  private static IdempotencyConfig config() {
    return IdempotencyConfig.builder().store(CaffeineIdempotencyStore.builder().build()).build();
  }

  private void install() {
    Idempotency.install(MicrometerIdempotency.instrument(config(), meters, observations));
  }

  @Test
  void eachCall_isOneObservation_startedAndStopped_withItsNameStoreAndOutcome() {
    install();
    orders.place("o-1", 100);
    assertThat(observations).hasNumberOfObservationsEqualTo(1)
        .hasSingleObservationThat()
        .hasNameEqualTo("idempotent.call")
        .hasContextualNameEqualTo("idempotent " + Orders.PLACE)
        .hasBeenStarted()
        .hasBeenStopped()
        .doesNotHaveError()
        .hasLowCardinalityKeyValue("idempotent.name", Orders.PLACE)
        .hasLowCardinalityKeyValue("idempotent.store", "default")
        .hasLowCardinalityKeyValue("idempotent.outcome", "executed")
        .doesNotHaveHighCardinalityKeyValueWithKey("idempotent.key");

    orders.place("o-1", 100);
    // the outcome is set as the observation stops ("unknown" while it runs)
    assertThat(observations).hasNumberOfObservationsEqualTo(2)
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("idempotent.outcome", "replayed"))
        .hasHandledContextsThatSatisfy(contexts -> assertThat(contexts).allSatisfy(c -> {
          assertThat(c.getHighCardinalityKeyValues()).isEmpty();
          assertThat(c.getLowCardinalityKeyValues()).extracting(KeyValue::getKey)
              .containsExactlyInAnyOrder("idempotent.name", "idempotent.store", "idempotent.outcome");
        }));
  }

  @Test
  void callThatThrows_recordsItsError() {
    install();
    assertThatThrownBy(() -> orders.decline("o-1")).isInstanceOf(IllegalStateException.class);
    assertThat(observations).hasSingleObservationThat()
        .hasBeenStopped()
        .hasLowCardinalityKeyValue("idempotent.outcome", "failed")
        .assertThatError().isInstanceOf(IllegalStateException.class).hasMessage("declined o-1");
  }

  @Test
  void observation_isCurrentWhileTheMethodRuns_soItsOwnObservationsNestInside() {
    install();
    assertThat(orders.traced("o-1", observations)).isEqualTo("idempotent.call");
    assertThat(observations.getCurrentObservation()).as("closed once the call returned").isNull();
    assertThat(observations).hasNumberOfObservationsEqualTo(2)
        .hasObservationWithNameEqualTo("orders.inner").that()
        .hasParentObservationContextMatching(parent -> parent.getName().equals("idempotent.call"));
  }

  @Test
  void asynchronousCall_leavesTheThreadAtOnce_andStopsWhenItsStageCompletes() throws Exception {
    install();
    CompletableFuture<String> result = new CompletableFuture<>();
    CompletableFuture<String> stage = orders.async("o-1", result);
    assertThat(observations.getCurrentObservation()).as("no scope left open on the calling thread").isNull();
    assertThat(observations).hasSingleObservationThat().hasBeenStarted().isNotStopped();

    result.complete("paid");
    assertThat(stage.get(5, TimeUnit.SECONDS)).isEqualTo("paid");
    assertThat(observations).hasSingleObservationThat().hasBeenStopped()
        .hasLowCardinalityKeyValue("idempotent.outcome", "executed");
  }

  @Test
  void observationsWithoutMeters_andAConventionOfOnesOwn() {
    IdempotentCallObservationConvention convention = new IdempotentCallObservationConvention() {
      @Override
      public String getName() {
        return "orders.idempotency";
      }

      @Override
      public KeyValues getLowCardinalityKeyValues(IdempotentCallContext context) {
        Outcome outcome = context.outcome();
        return KeyValues.of("call", context.callName(), "ended", outcome == null ? "-" : outcome.name());
      }
    };
    Idempotency.install(MicrometerIdempotency.builder().observationRegistry(observations)
        .observationConvention(convention).build().instrument(config()));
    orders.place("o-1", 100);
    orders.place("o-1", 100);
    assertThat(observations).hasNumberOfObservationsWithNameEqualTo("orders.idempotency", 2)
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("ended", "EXECUTED"))
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("ended", "REPLAYED"));
    assertThat(observations).hasHandledContextsThatSatisfy(contexts ->
        assertThat(contexts).allSatisfy(c -> assertThat(c).isInstanceOf(IdempotentCallContext.class)));
    assertThat(meters.getMeters()).isEmpty();
  }
}
