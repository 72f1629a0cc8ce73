package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ProgrammaticApiTest {

  private final Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
      .store(new InMemoryTestStore(System::nanoTime, true))
      .build());
  private final AtomicInteger runs = new AtomicInteger();

  @Test
  void run_secondCallWithSameKey_isReplayed() {
    CallResult<String> first = idempotency.call("emails.send", String.class).key("m-1").execute(() -> {
      runs.incrementAndGet();
      return "sent";
    });
    CallResult<String> second = idempotency.call("emails.send", String.class).key("m-1").execute(() -> {
      runs.incrementAndGet();
      return "sent twice";
    });
    assertThat(first.replayed()).isFalse();
    assertThat(second.replayed()).isTrue();
    assertThat(second.value()).isEqualTo("sent");
    assertThat(runs).hasValue(1);
  }

  @Test
  void run_genericResultType_isDecoded() {
    Type listOfLong = new java.lang.reflect.ParameterizedType() {
      public Type[] getActualTypeArguments() {
        return new Type[] {Long.class};
      }

      public Type getRawType() {
        return List.class;
      }

      public Type getOwnerType() {
        return null;
      }
    };
    List<Long> a = idempotency.<List<Long>>call("ids", listOfLong).key("k").run(() -> List.of(1L, 2L));
    List<Long> b = idempotency.<List<Long>>call("ids", listOfLong).key("k").run(() -> List.of(9L));
    assertThat(b).isEqualTo(a).containsExactly(1L, 2L);
    assertThat(b.get(0)).isInstanceOf(Long.class);
  }

  @Test
  void run_checkedException_passesThroughAndReleases() {
    assertThatThrownBy(() -> idempotency.call("upload", String.class).key("f-1").run(() -> {
      runs.incrementAndGet();
      throw new IOException("disk full");
    })).isInstanceOf(IOException.class).hasMessage("disk full");
    assertThat(idempotency.call("upload", String.class).key("f-1").run(() -> "ok")).isEqualTo("ok");
  }

  @Test
  void run_payloadChecked_onlyWhenGiven() {
    idempotency.call("c", String.class).key("k").payload(1).run(() -> "one");
    assertThatThrownBy(() -> idempotency.call("c", String.class).key("k").payload(2).run(() -> "two"))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(idempotency.call("c", String.class).key("k").run(() -> "no payload given")).isEqualTo("one");
  }

  @Test
  void run_missingKey_isRejected() {
    assertThatThrownBy(() -> idempotency.call("c", String.class).run(() -> "x"))
        .isInstanceOf(IdempotencyKeyException.class).hasMessageContaining("'c'".replace("'", ""));
  }

  @Test
  void run_scopes_areSeparate() {
    assertThat(idempotency.call("c", String.class).key("k").scope("tenant-a").run(() -> "a")).isEqualTo("a");
    assertThat(idempotency.call("c", String.class).key("k").scope("tenant-b").run(() -> "b")).isEqualTo("b");
  }

  /** A value with private state and no getters. */
  static final class Amount {
    private final int cents;

    Amount(int cents) {
      this.cents = cents;
    }
  }

  @Test
  void run_payloadsDifferingInPrivateState_areReusedKey() {
    idempotency.call("charge", String.class).key("o-1").payload("o-1", new Amount(100)).run(() -> "charged");
    assertThatThrownBy(() -> idempotency.call("charge", String.class).key("o-1").payload("o-1", new Amount(999))
        .run(() -> "charged again")).isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(idempotency.call("charge", String.class).key("o-1").payload("o-1", new Amount(100))
        .execute(() -> "charged again").replayed()).isTrue();
  }

  @Test
  void run_payloadWithoutValueIdentity_isRefusedBeforeTheBodyRuns() {
    Runnable task = () -> {};
    assertThatThrownBy(() -> idempotency.call("jobs.start", String.class).key("j-1").payload("j-1", task)
        .run(() -> {
          runs.incrementAndGet();
          return "started";
        }))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("jobs.start").hasMessageContaining("payload[1]").hasMessageContaining("lambda");
    assertThatThrownBy(() -> idempotency.call("jobs.start", String.class).key("j-2")
        .payload(new Thread(() -> {})).run(() -> "started"))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("payload[0]").hasMessageContaining("java.lang.Thread");
    assertThat(runs).hasValue(0);
  }
}
