package io.idempotent.caffeine;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.ManualTimeSource;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreSettings;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CaffeineIdempotencyStoreTest {

  private final ManualTimeSource ticker = new ManualTimeSource();

  @Test
  void boundedSize_neverEvictsInProgressClaims() {
    CaffeineIdempotencyStore store = CaffeineIdempotencyStore.builder().ticker(ticker::read).maximumCompleted(10).build();
    for (int i = 0; i < 500; i++) {
      assertThat(store.claim("running-" + i, "fp", "o", Duration.ofMinutes(5)).claimed()).isTrue();
    }
    for (int i = 0; i < 200; i++) {
      store.claim("done-" + i, "fp", "o", Duration.ofMinutes(5));
      store.complete("done-" + i, "o", StoredOutcome.nullValue(), Duration.ofHours(1));
    }
    store.size();
    for (int i = 0; i < 500; i++) {
      assertThat(store.claim("running-" + i, "fp", "other", Duration.ofMinutes(5)).claimed())
          .as("in-progress claim %d must survive eviction", i).isFalse();
    }
    long completedLeft = 0;
    for (int i = 0; i < 200; i++) {
      if (store.find("done-" + i).isPresent()) {
        completedLeft++;
      }
    }
    assertThat(completedLeft).isLessThanOrEqualTo(10);
  }

  @Test
  void unfinishedClaimsAndUnusedTokens_areDroppedTenLeasesAfterTheirLease() {
    CaffeineIdempotencyStore store = CaffeineIdempotencyStore.builder().ticker(ticker::read).build();
    for (int i = 0; i < 1_000; i++) {
      store.claim("abandoned-" + i, "fp", "o", Duration.ofSeconds(1)); // an owner that never came back
    }
    ticker.advance(Duration.ofSeconds(5));
    assertThat(store.size()).as("kept for a late owner within the grace").isEqualTo(1_000);
    assertThat(store.complete("abandoned-7", "o", StoredOutcome.nullValue(), Duration.ofMinutes(1))).isTrue();
    ticker.advance(Duration.ofSeconds(7)); // past one lease plus ten
    assertThat(store.size()).as("only the completed record is left").isEqualTo(1);
  }

  @Test
  void results_areKeptByReference() {
    CaffeineIdempotencyStore store = CaffeineIdempotencyStore.builder().ticker(ticker::read).build();
    Object result = new Object();
    store.claim("k", "fp", "o", Duration.ofMinutes(1));
    store.complete("k", "o", StoredOutcome.value(result, () -> {
      throw new AssertionError("an in-memory store never encodes");
    }), Duration.ofHours(1));
    StoredOutcome outcome = store.find("k").orElseThrow().outcome();
    assertThat(outcome.hasReference()).isTrue();
    assertThat(outcome.reference()).isSameAs(result);
  }

  @Test
  void expiredInProgress_isReportedAsTakenOver_expiredCompletedAsAcquired() {
    CaffeineIdempotencyStore store = CaffeineIdempotencyStore.builder().ticker(ticker::read).build();
    store.claim("a", "fp", "o", Duration.ofSeconds(1));
    store.claim("b", "fp", "o", Duration.ofSeconds(1));
    store.complete("b", "o", StoredOutcome.nullValue(), Duration.ofSeconds(1));
    ticker.advance(Duration.ofMillis(1500));
    assertThat(store.claim("a", "fp", "p", Duration.ofSeconds(1)).status()).isEqualTo(ClaimResult.Status.TAKEN_OVER);
    assertThat(store.claim("b", "fp", "p", Duration.ofSeconds(1)).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
    assertThat(store.find("a").orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
  }

  @Test
  void provider_isNamedCaffeine_andReadsItsBound() {
    CaffeineStoreProvider p = new CaffeineStoreProvider();
    assertThat(p.name()).isEqualTo("caffeine");
    assertThat(p.create(new StoreSettings("caffeine", Map.of("maximum-completed", "5")))).isInstanceOf(CaffeineIdempotencyStore.class);
  }
}
