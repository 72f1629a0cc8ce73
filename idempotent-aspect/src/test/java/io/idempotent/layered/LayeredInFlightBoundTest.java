package io.idempotent.layered;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.ManualTimeSource;
import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.runtime.OneTimeTokens;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The layered store's record of claims running in this JVM ends with the claims, however they end. */
class LayeredInFlightBoundTest {

  private final ManualTimeSource ticker = new ManualTimeSource();
  private final LayeredIdempotencyStore layered = new LayeredIdempotencyStore(
      new InMemoryTestStore(ticker, false), new InMemoryTestStore(ticker, true), ticker);

  @Test
  void inFlight_manyTokensNeverConsumedAndClaimsNeverFinished_staysBounded() {
    OneTimeTokens tokens = Idempotency.create(IdempotencyConfig.builder().store(layered).build()).tokens("form");
    for (int i = 0; i < 20_000; i++) {
      tokens.issue(Duration.ofMillis(200));
      layered.claim("abandoned-" + i, "", "owner-" + i, Duration.ofMillis(200)); // its owner died
      if (i % 1000 == 999) {
        ticker.advance(Duration.ofMillis(250)); // every earlier token and claim has expired by now
      }
    }
    assertThat(layered.inFlightSize()).as("entries left of 40,000 expired claims and tokens")
        .isLessThanOrEqualTo(4 * 2_000);
  }

  @Test
  void inFlight_liveClaims_areNeverSweptOut() {
    for (int i = 0; i < 5_000; i++) {
      layered.claim("live-" + i, "", "owner-" + i, Duration.ofMinutes(10));
    }
    assertThat(layered.inFlightSize()).isEqualTo(5_000);
    assertThat(layered.claim("live-0", "", "another", Duration.ofMinutes(10)).claimed()).isFalse();
  }
}
