package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lost claim is reported as what the store shows: a record that vanished (evicted, lost in a failover)
 * is "gone", not a lease that ran out; another owner's claim is a takeover.
 */
class LeaseLostReportTest {

  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final List<IdempotencyEvent.Type> events = new CopyOnWriteArrayList<>();
  private final Logger logger = Logger.getLogger("io.idempotent");
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
        warnings.add(record.getMessage());
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  @BeforeEach
  void listen() {
    logger.addHandler(handler);
  }

  @AfterEach
  void stopListening() {
    logger.removeHandler(handler);
  }

  private Idempotency over(InMemoryTestStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).leaseRenewal(false)
        .listener(e -> events.add(e.type())).build());
  }

  @Test
  void recordThatVanishedWhileTheMethodRan_isReportedAsGone_notAsALeaseThatRanOut() {
    InMemoryTestStore store = new InMemoryTestStore();
    Idempotency idempotency = over(store);
    String result = idempotency.call("cards.charge", String.class).key("c-1").run(() -> {
      store.forgetAll(); // the store lost the record: an eviction, a restart without persistence, a failover
      return "charged";
    });
    assertThat(result).isEqualTo("charged");
    assertThat(events).contains(IdempotencyEvent.Type.LEASE_LOST);
    assertThat(warnings).anySatisfy(w -> assertThat(w).contains("before it could complete")
        .contains("its record is gone from the store").doesNotContain("lease ran out"));
  }

  @Test
  void claimTakenOverWhileTheMethodRan_isReportedAsATakeover() {
    InMemoryTestStore store = new InMemoryTestStore();
    Idempotency idempotency = over(store);
    String result = idempotency.call("cards.charge", String.class).key("c-1").lease(Duration.ofSeconds(1))
        .run(() -> {
          sleep(1_300);
          assertThat(idempotency.call("cards.charge", String.class).key("c-1").run(() -> "second")).isEqualTo("second");
          return "first";
        });
    assertThat(result).isEqualTo("first");
    assertThat(warnings).anySatisfy(w -> assertThat(w).contains("another caller, which took it over"));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
