package io.idempotent.jdbi.layered;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallResult;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.TestDatabase;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two application instances, each with its own near cache in front of one shared table: after a caller
 * changes the list it got back, both instances replay the list the first call returned. What one instance
 * serves from memory must be what any other instance reads from the table.
 */
class LayeredMutationAcrossInstancesTest {

  @SuppressWarnings("unused")
  private ArrayList<String> listResult;

  private static Idempotency instance(TestDatabase db) {
    db.requireReachable();
    return Idempotency.create(IdempotencyConfig.builder()
        .store(new LayeredIdempotencyStore(CaffeineIdempotencyStore.builder().build(), db.storeBuilder().build()))
        .build());
  }

  private static CallResult<ArrayList<String>> call(Idempotency instance, String key, AtomicInteger runs)
      throws NoSuchFieldException {
    Type type = LayeredMutationAcrossInstancesTest.class.getDeclaredField("listResult").getGenericType();
    return instance.<ArrayList<String>>call("layered.mutation", type).key(key).execute(() -> {
      runs.incrementAndGet();
      return new ArrayList<>(List.of("a"));
    });
  }

  @ParameterizedTest
  @MethodSource("io.idempotent.jdbi.TestDatabase#h2AndPostgres")
  void twoInstances_afterACallerMutatesTheResult_replayTheRecordedValue(TestDatabase db) throws Exception {
    Idempotency first = instance(db);
    Idempotency second = instance(db);
    String key = "k-" + UUID.randomUUID();
    AtomicInteger runs = new AtomicInteger();

    call(first, key, runs).value().add("MUTATED");
    CallResult<ArrayList<String>> here = call(first, key, runs);
    CallResult<ArrayList<String>> there = call(second, key, runs);

    assertThat(here.replayed()).isTrue();
    assertThat(there.replayed()).isTrue();
    assertThat(here.value()).containsExactly("a");
    assertThat(there.value()).containsExactly("a");
    here.value().add("M2");
    there.value().add("M3");
    assertThat(call(first, key, runs).value()).containsExactly("a");
    assertThat(call(second, key, runs).value()).containsExactly("a");
    assertThat(runs).hasValue(1);
  }
}
