package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class ManualTimeSourceTest {

  private final ManualTimeSource ticker = new ManualTimeSource();

  /** Parks on the ticker until {@code deadline} has been reached, as the engine's waits do. */
  private Thread parkedUntil(long deadline, CountDownLatch done) {
    Thread t = new Thread(() -> {
      while (ticker.nanoTime() - deadline < 0) {
        ticker.parkUntil(this, deadline);
      }
      done.countDown();
    }, "parked");
    t.setDaemon(true);
    t.start();
    return t;
  }

  @Test
  void advance_wakesAThreadOnlyOnceItsDeadlineIsReached() throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    Thread t = parkedUntil(ticker.nanoTime() + Duration.ofSeconds(10).toNanos(), done);
    assertThat(ticker.awaitParked(t)).isTrue();
    ticker.advance(Duration.ofSeconds(9));
    assertThat(ticker.awaitParked(t)).as("still parked after 9 s").isTrue();
    assertThat(done.getCount()).isOne();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    t.join(10_000);
    assertThat(ticker.awaitParked(t)).as("an ended thread is not parked").isFalse();
  }

  @Test
  void parkUntil_returnsOnUnpark_beforeTheDeadline() throws Exception {
    CountDownLatch returned = new CountDownLatch(1);
    Thread t = new Thread(() -> {
      ticker.parkUntil(this, ticker.nanoTime() + Duration.ofHours(1).toNanos());
      returned.countDown();
    });
    t.start();
    assertThat(ticker.awaitParked(t)).isTrue();
    LockSupport.unpark(t);
    assertThat(returned.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void clock_movesWithTheTicker_andTimeOnlyMovesForward() {
    Instant start = ticker.clock().instant();
    long nanos = ticker.read();
    ticker.advance(Duration.ofMinutes(3));
    assertThat(ticker.clock().instant()).isEqualTo(start.plus(Duration.ofMinutes(3)));
    assertThat(ticker.getAsLong() - nanos).isEqualTo(Duration.ofMinutes(3).toNanos());
    assertThatThrownBy(() -> ticker.advance(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class);
  }
}
