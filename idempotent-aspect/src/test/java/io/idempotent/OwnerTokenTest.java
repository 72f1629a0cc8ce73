package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.ClaimResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Owner tokens fence a claim against its successors (docs/DESIGN.md, Store SPI), so every claim that may have written
 * a record needs a token of its own; a replay, which writes nothing, needs none and makes none.
 */
class OwnerTokenTest {

  /** Records the token of every claim that may have written something. */
  static final class TokenRecordingStore extends InMemoryTestStore {
    final List<String> written = Collections.synchronizedList(new ArrayList<>());
    final List<String> offered = Collections.synchronizedList(new ArrayList<>());
    volatile boolean failNextClaimAfterWriting;

    TokenRecordingStore() {
      super(System::nanoTime, true);
    }

    @Override
    public ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
      offered.add(owner);
      ClaimResult result = super.claim(key, fingerprint, owner, lease);
      if (result.claimed()) {
        written.add(owner);
        if (failNextClaimAfterWriting) {
          failNextClaimAfterWriting = false;
          throw new IllegalStateException("the reply to a claim that was written is lost");
        }
      }
      return result;
    }
  }

  private final TokenRecordingStore store = new TokenRecordingStore();
  private final Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder().store(store).build());

  private String call(String key) {
    return idempotency.call("tokens", String.class).key(key).run(() -> "done " + key);
  }

  @Test
  void claims_interleavedWithReplays_eachWriteADistinctToken() {
    for (int i = 0; i < 50; i++) {
      call("k-" + i);
      call("k-" + i);
      call("k-" + (i / 2));
    }
    assertThat(store.written).hasSize(50).doesNotHaveDuplicates();
  }

  @Test
  void replay_offersTheTokenItDidNotUse_toTheNextCall() {
    call("a");
    call("a");
    call("a");
    call("b");
    // a's claim, two replays offering the same unused token, then b's claim writing that token
    assertThat(store.offered).hasSize(4);
    assertThat(store.offered.get(1)).isEqualTo(store.offered.get(2)).isEqualTo(store.offered.get(3));
    assertThat(store.written).containsExactly(store.offered.get(0), store.offered.get(3));
  }

  @Test
  void claimWhoseReplyWasLost_neverLendsItsTokenToAnotherClaim() {
    store.failNextClaimAfterWriting = true;
    assertThatThrownBy(() -> call("lost")).isInstanceOf(IdempotencyStoreException.class);
    call("next");
    assertThat(store.written).hasSize(2).doesNotHaveDuplicates();
  }

  @Test
  void nestedCalls_claimWithDistinctTokens() {
    String outer = idempotency.call("outer", String.class).key("o").run(() -> call("inner-1") + call("inner-2"));
    assertThat(outer).isEqualTo("done inner-1done inner-2");
    assertThat(store.written).hasSize(3).doesNotHaveDuplicates();
  }

  @Test
  void threads_mixingClaimsAndReplays_neverShareAToken() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        futures.add(pool.submit(() -> {
          for (int i = 0; i < 500; i++) {
            String key = "shared-" + (i % 100);
            idempotency.call("tokens", String.class).key(key).onInProgress(OnInProgress.WAIT).run(() -> key);
          }
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(store.written).hasSize(100);
    assertThat(new HashSet<>(store.written)).hasSize(100);
  }
}
