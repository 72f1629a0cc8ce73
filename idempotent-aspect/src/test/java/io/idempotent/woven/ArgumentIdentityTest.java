package io.idempotent.woven;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.runtime.Idempotency;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What identifies a call: the state of its arguments, never their identity, and a name per overload. */
class ArgumentIdentityTest {

  private final ArgumentService service = new ArgumentService();
  private final RefusedArguments refused = new RefusedArguments();

  @AfterEach
  void uninstall() {
    Idempotency.uninstall();
  }

  private static Connection connection() {
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          throw new UnsupportedOperationException(method.getName());
        });
  }

  @Test
  void charge_sameKeyOtherPrivateState_isReusedKey() {
    Fixture.fakeTime();
    assertThat(service.charge("o-1", new Amount(100))).isEqualTo("o-1:100 cents");
    assertThatThrownBy(() -> service.charge("o-1", new Amount(999)))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(service.charge("o-1", new Amount(100))).isEqualTo("o-1:100 cents");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs).hasValue(1);
  }

  @Test
  void record_getterReadingAClock_equalFieldsReplay() {
    Fixture.fakeTime();
    service.record("r-1", new Reading("boiler", 71.5));
    assertThat(service.record("r-1", new Reading("boiler", 71.5))).isEqualTo("recorded boiler");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThatThrownBy(() -> service.record("r-1", new Reading("boiler", 71.6)))
        .isInstanceOf(IdempotencyKeyReusedException.class);
    assertThat(service.runs).hasValue(1);
  }

  @Test
  void ship_cyclicGraph_isRefusedNamingMethodParameterAndPath_beforeRunning() {
    Fixture.fakeTime();
    Parcel outer = new Parcel("outer");
    Parcel inner = new Parcel("inner");
    outer.add(inner);
    inner.next(outer);
    assertThatThrownBy(() -> service.ship("p-1", outer))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("ArgumentService.ship(String, Parcel)")
        .hasMessageContaining("parameter 'parcel'")
        .hasMessageContaining("parcel.contents[0].next")
        .hasMessageContaining("cycle");
    assertThat(service.runs).hasValue(0);
  }

  @Test
  void ship_sharedButAcyclicObjects_areFingerprinted() {
    Fixture.fakeTime();
    Parcel box = new Parcel("box");
    Parcel shared = new Parcel("shared");
    box.add(shared);
    box.add(shared);
    box.next(shared);
    assertThat(service.ship("p-2", box)).isEqualTo("shipped box");
    assertThat(service.ship("p-2", box)).isEqualTo("shipped box");
    assertThat(service.runs).hasValue(1);
  }

  @Test
  void handOver_objectParameterHoldingALambdaOrABareObject_isRefusedBeforeRunning() {
    Fixture.fakeTime();
    Supplier<String> lambda = () -> "x";
    assertThatThrownBy(() -> service.handOver("h-1", lambda))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("ArgumentService.handOver(String, Object)")
        .hasMessageContaining("parameter 'value'")
        .hasMessageContaining("lambda");
    assertThatThrownBy(() -> service.handOver("h-2", new Object()))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("parameter 'value'")
        .hasMessageContaining("java.lang.Object");
    assertThatThrownBy(() -> service.handOver("h-3", new ByteArrayInputStream(new byte[1])))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("parameter 'value'")
        .hasMessageContaining("java.io.ByteArrayInputStream");
    assertThat(service.runs).hasValue(0);
    assertThat(service.handOver("h-4", new Amount(5))).isEqualTo("handed over");
  }

  @Test
  void create_connectionParameter_isLeftOutOfTheFingerprint() {
    Fixture.fakeTime();
    assertThat(service.create(connection(), "order-1")).isEqualTo("created order-1");
    assertThat(service.create(connection(), "order-1")).isEqualTo("created order-1");
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs).hasValue(1);
  }

  @Test
  void startWith_parameterWithoutValueIdentity_isAcceptedWhenThePayloadLeavesItOut() {
    Fixture.fakeTime();
    assertThat(service.startWith("w-1", new Thread(() -> {}))).isEqualTo("started w-1");
    assertThat(service.startWith("w-1", new Thread(() -> {}))).isEqualTo("started w-1");
    assertThat(service.runs).hasValue(1);
  }

  @Test
  void lookup_overloadsWithTheSameKey_neverShareRecords() {
    Fixture f = Fixture.fakeTime();
    assertThat(service.lookup("k")).isEqualTo("value of k");
    assertThat(service.lookup("k", 2)).isEqualTo(2);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.EXECUTED);
    assertThat(service.lookup("k")).isEqualTo("value of k");
    assertThat(service.lookup("k", 2)).isEqualTo(2);
    assertThat(Idempotency.lastOutcome()).isEqualTo(CallOutcome.REPLAYED);
    assertThat(service.runs).hasValue(2);
    assertThat(f.events.stream().map(e -> e.name()).distinct())
        .containsExactlyInAnyOrder(ArgumentService.class.getName() + ".lookup(String)",
            ArgumentService.class.getName() + ".lookup(String, int)");
  }

  @Test
  void byReference_keyValueWithoutItsOwnText_isRefusedAtCallTime() {
    Fixture.fakeTime();
    assertThat(service.byReference("r-1", "order-7")).isEqualTo("by order-7");
    assertThatThrownBy(() -> service.byReference("r-2", new RefusedArguments.Request("order-8")))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("ArgumentService.byReference(String, Object)")
        .hasMessageContaining("key = \"#ref\"")
        .hasMessageContaining(RefusedArguments.Request.class.getName())
        .hasMessageContaining("toString");
    assertThat(service.runs).hasValue(1);
  }

  @Test
  void spawn_threadParameter_isRefusedAtTheFirstCall() {
    Fixture.fakeTime();
    assertThatThrownBy(() -> refused.spawn("t-1", new Thread(() -> {})))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("RefusedArguments.spawn(String, Thread)")
        .hasMessageContaining("parameter 'worker'")
        .hasMessageContaining("java.lang.Thread");
    assertThat(refused.runs).hasValue(0);
  }

  @Test
  void submit_plainKeyWithoutToString_isRefusedAtTheFirstCall() {
    Fixture.fakeTime();
    assertThatThrownBy(() -> refused.submit(new RefusedArguments.Request("r-1")))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("RefusedArguments.submit(Request)")
        .hasMessageContaining("@Idempotent(key)")
        .hasMessageContaining("#req")
        .hasMessageContaining(RefusedArguments.Request.class.getName())
        .hasMessageContaining("#req.id");
    assertThat(refused.runs).hasValue(0);
  }

  @Test
  void validate_reportsEveryArgumentAndKeyThatCannotIdentifyACall() {
    assertThatThrownBy(() -> Idempotency.validate(RefusedArguments.class))
        .isInstanceOf(IdempotencyConfigurationException.class)
        .hasMessageContaining("spawn(String, Thread)").hasMessageContaining("parameter 'worker'")
        .hasMessageContaining("later(String, Supplier)").hasMessageContaining("parameter 'task'")
        .hasMessageContaining("upload(String, InputStream)").hasMessageContaining("parameter 'body'")
        .hasMessageContaining("draw(String, Random)").hasMessageContaining("parameter 'random'")
        .hasMessageContaining("payload = \"#connection\"").hasMessageContaining("java.sql.Connection")
        .hasMessageContaining("submit(Request)")
        .hasMessageContaining("batch(String[])").hasMessageContaining("array")
        .hasMessageContaining("@Idempotent(scope)").hasMessageContaining("#tenant");
    Idempotency.validate(ArgumentService.class);
  }
}
