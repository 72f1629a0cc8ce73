package io.idempotent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.idempotent.reference.InMemoryTestStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.ClaimResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A refused call's exception names the call and its stored key as data, the same way its event does, so
 * that a caller can map it (to a status code, a metric) without parsing the message.
 */
class ExceptionDataTest {

  private static final String NAME = "orders.create";

  private final List<IdempotencyEvent> events = new CopyOnWriteArrayList<>();

  private Idempotency over(InMemoryTestStore store) {
    return Idempotency.create(IdempotencyConfig.builder().store(store).listener(events::add).build());
  }

  private String keyReferenceOf(IdempotencyEvent.Type type) {
    return events.stream().filter(e -> e.type() == type).findFirst().orElseThrow().keyReference();
  }

  @Test
  void keyReused_namesTheCallAndItsKey_asItsEventDoes() {
    Idempotency idempotency = over(new InMemoryTestStore());
    idempotency.call(NAME, String.class).key("order-1").payload(new Order("a", List.of(1))).run(() -> "done");

    IdempotencyKeyReusedException e = catchThrowableOfType(IdempotencyKeyReusedException.class, () ->
        idempotency.call(NAME, String.class).key("order-1").payload(new Order("b", List.of(1))).run(() -> "again"));

    assertThat(e.name()).isEqualTo(NAME);
    assertThat(e.keyReference()).isNotBlank().isEqualTo(keyReferenceOf(IdempotencyEvent.Type.KEY_REUSED));
    assertThat(e.getMessage()).doesNotContain("order-1");
  }

  @Test
  void inProgress_namesTheCallAndItsKey() {
    Idempotency idempotency = over(new InMemoryTestStore());
    IdempotencyInProgressException[] inner = new IdempotencyInProgressException[1];
    idempotency.call(NAME, String.class).key("order-2").run(() -> {
      inner[0] = catchThrowableOfType(IdempotencyInProgressException.class,
          () -> idempotency.call(NAME, String.class).key("order-2").run(() -> "nested"));
      return "outer";
    });

    assertThat(inner[0].name()).isEqualTo(NAME);
    assertThat(inner[0].keyReference()).isEqualTo(keyReferenceOf(IdempotencyEvent.Type.IN_PROGRESS));
  }

  @Test
  void missingKey_namesTheCall_andNoKey() {
    Idempotency idempotency = over(new InMemoryTestStore());
    IdempotencyKeyException e = catchThrowableOfType(IdempotencyKeyException.class,
        () -> idempotency.call(NAME, String.class).key(" ").run(() -> "never"));
    assertThat(e.name()).isEqualTo(NAME);
    assertThat(e.keyReference()).isNull();
  }

  @Test
  void storeFailingToClaim_namesTheCallAndItsKey() {
    Idempotency idempotency = over(new InMemoryTestStore() {
      @Override
      public synchronized ClaimResult claim(String key, String fingerprint, String owner, Duration lease) {
        throw new IllegalStateException("connection refused");
      }
    });
    IdempotencyStoreException e = catchThrowableOfType(IdempotencyStoreException.class,
        () -> idempotency.call(NAME, String.class).key("order-3").run(() -> "never"));
    assertThat(e.name()).isEqualTo(NAME);
    assertThat(e.keyReference()).isEqualTo(keyReferenceOf(IdempotencyEvent.Type.STORE_ERROR));
  }

  /** An ordinary class with private fields and a mutable list, as callers pass. */
  static final class Order {
    private final String item;
    private final List<Integer> quantities;

    Order(String item, List<Integer> quantities) {
      this.item = item;
      this.quantities = new java.util.ArrayList<>(quantities);
    }
  }
}
