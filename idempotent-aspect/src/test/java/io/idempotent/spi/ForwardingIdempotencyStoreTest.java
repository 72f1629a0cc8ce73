package io.idempotent.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ForwardingIdempotencyStoreTest {

  /** One call the wrapped store received. */
  private record Call(String method, List<Object> arguments) {}

  /** A decorator that changes nothing. */
  private static final class Plain extends ForwardingIdempotencyStore {
    Plain(IdempotencyStore delegate) {
      super(delegate);
    }
  }

  /** The interfaces a forwarding store passes on: the store's and the optional capabilities. */
  private static final Class<?>[] INTERFACES =
      {IdempotencyStore.class, CallScopedClaims.class, ChangeSignals.class, KeyLimits.class};

  /** The public methods of the store's interface and of the capabilities, {@code close} included. */
  private static List<Method> storeMethods() {
    return Arrays.stream(INTERFACES).flatMap(i -> Arrays.stream(i.getMethods()))
        .filter(m -> !Modifier.isStatic(m.getModifiers()))
        .toList();
  }

  /** The public methods of a call's handle, defaults included. */
  private static List<Method> claimMethods() {
    return Arrays.stream(CallClaim.class.getMethods()).filter(m -> !Modifier.isStatic(m.getModifiers())).toList();
  }

  private static Object answerFor(Class<?> type) {
    if (type == ClaimResult.class) {
      return ClaimResult.takenOver();
    }
    if (type == boolean.class) {
      return true;
    }
    if (type == int.class) {
      return 4711;
    }
    if (type == Optional.class) {
      return Optional.of(new IdempotencyRecord("order-42", RecordState.IN_PROGRESS, "fp", "owner-1", null));
    }
    if (type == java.util.concurrent.CompletionStage.class) {
      return new CompletableFuture<>();
    }
    if (type == StoreKeyRules.class) {
      return StoreKeyRules.any().maxChars(77);
    }
    if (type == CallClaim.class) {
      return CallClaims.of(new Plain(plainStore(new ArrayList<>())), "order-42", "owner-1", ClaimResult.acquired());
    }
    return null;
  }

  private static Object argumentFor(Class<?> type, int position) {
    if (type == String.class) {
      return "argument-" + position;
    }
    if (type == Duration.class) {
      return Duration.ofSeconds(30 + position);
    }
    if (type == int.class) {
      return 100 + position;
    }
    if (type == StoredOutcome.class) {
      return StoredOutcome.failure("com.example.Declined", "card declined");
    }
    if (type == Runnable.class) {
      return (Runnable) () -> { };
    }
    if (type == io.idempotent.Effects.class) {
      return io.idempotent.Effects.TRANSACTIONAL;
    }
    throw new AssertionError("no sample argument of " + type);
  }

  @Test
  void everyMethodOfTheStore_isDeclaredByTheForwardingStore() throws Exception {
    for (Method m : storeMethods()) {
      Method declared = ForwardingIdempotencyStore.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      assertThat(Modifier.isPublic(declared.getModifiers())).as(m.getName()).isTrue();
    }
  }

  @Test
  void everyMethod_reachesTheWrappedStoreWithItsArguments_andReturnsItsAnswer() throws Exception {
    List<Call> received = new ArrayList<>();
    List<Object> answers = new ArrayList<>();
    IdempotencyStore wrapped = (IdempotencyStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        INTERFACES, (proxy, method, args) -> {
          received.add(new Call(method.getName(), args == null ? List.of() : Arrays.asList(args)));
          Object answer = answerFor(method.getReturnType());
          answers.add(answer);
          return answer;
        });
    IdempotencyStore forwarding = new Plain(wrapped);
    for (Method m : storeMethods()) {
      Class<?>[] types = m.getParameterTypes();
      Object[] args = new Object[types.length];
      for (int i = 0; i < types.length; i++) {
        args[i] = argumentFor(types[i], i);
      }
      int before = received.size();
      Object returned = m.invoke(forwarding, args);
      assertThat(received).as(m.getName()).hasSize(before + 1);
      assertThat(received.get(before)).isEqualTo(new Call(m.getName(), Arrays.asList(args)));
      if (m.getReturnType().isPrimitive()) {
        assertThat(returned).as("what %s returned", m.getName()).isEqualTo(answers.get(before));
      } else {
        assertThat(returned).as("what %s returned", m.getName()).isSameAs(answers.get(before));
      }
    }
  }

  @Test
  void aSubclass_overridesOneMethod_andTheRestStillForward() {
    AtomicInteger renewals = new AtomicInteger();
    List<String> found = new ArrayList<>();
    IdempotencyStore wrapped = (IdempotencyStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {IdempotencyStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("find")) {
            found.add((String) args[0]);
            return Optional.empty();
          }
          return answerFor(method.getReturnType());
        });
    IdempotencyStore counting = new ForwardingIdempotencyStore(wrapped) {
      @Override
      public boolean renew(String key, String owner, Duration lease) {
        renewals.incrementAndGet();
        return false;
      }
    };
    assertThat(counting.renew("order-42", "owner-1", Duration.ofSeconds(30))).isFalse();
    assertThat(counting.find("order-42")).isEmpty();
    assertThat(renewals).hasValue(1);
    assertThat(found).containsExactly("order-42");
  }

  /** A store with none of the capabilities, recording each primitive it receives. */
  private static IdempotencyStore plainStore(List<Call> received) {
    return (IdempotencyStore) Proxy.newProxyInstance(ForwardingIdempotencyStoreTest.class.getClassLoader(),
        new Class<?>[] {IdempotencyStore.class}, (proxy, method, args) -> {
          received.add(new Call(method.getName(), args == null ? List.of() : Arrays.asList(args)));
          return method.getReturnType() == ClaimResult.class ? ClaimResult.acquired() : answerFor(method.getReturnType());
        });
  }

  @Test
  void overAStoreWithoutCapabilities_aCallsHandleRunsItsPrimitives_andThereIsNoSignalNorLimit() {
    List<Call> received = new ArrayList<>();
    Plain forwarding = new Plain(plainStore(received));
    CallClaim claim = forwarding.claimForCall("order-42", "fp", "owner-1", Duration.ofSeconds(30),
        io.idempotent.Effects.EXTERNAL);
    assertThat(claim.result().claimed()).isTrue();
    StoredOutcome outcome = StoredOutcome.nullValue();
    claim.renew(Duration.ofSeconds(31));
    claim.complete(outcome, Duration.ofHours(1));
    claim.release();
    assertThat(received).containsExactly(
        new Call("claim", List.of("order-42", "fp", "owner-1", Duration.ofSeconds(30))),
        new Call("renew", List.of("order-42", "owner-1", Duration.ofSeconds(31))),
        new Call("complete", List.of("order-42", "owner-1", outcome, Duration.ofHours(1))),
        new Call("release", List.of("order-42", "owner-1")));
    assertThat(forwarding.changeSignal("order-42")).isNull();
    assertThat(forwarding.keyRules()).isSameAs(StoreKeyRules.any());
  }

  @Test
  void aForwardingHandle_passesEveryMethodOn() throws Exception {
    List<Call> received = new ArrayList<>();
    List<Object> answers = new ArrayList<>();
    CallClaim wrapped = (CallClaim) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {CallClaim.class}, (proxy, method, args) -> {
          received.add(new Call(method.getName(), args == null ? List.of() : Arrays.asList(args)));
          Object answer = answerFor(method.getReturnType());
          answers.add(answer);
          return answer;
        });
    CallClaim forwarding = new ForwardingCallClaim(wrapped) {};
    for (Method m : claimMethods()) {
      assertThat(ForwardingCallClaim.class.getDeclaredMethod(m.getName(), m.getParameterTypes())).as(m.getName())
          .isNotNull();
      Class<?>[] types = m.getParameterTypes();
      Object[] args = new Object[types.length];
      for (int i = 0; i < types.length; i++) {
        args[i] = argumentFor(types[i], i);
      }
      int before = received.size();
      Object returned = m.invoke(forwarding, args);
      assertThat(received.get(before)).isEqualTo(new Call(m.getName(), Arrays.asList(args)));
      if (m.getReturnType() != void.class) {
        assertThat(returned).as(m.getName()).isEqualTo(answers.get(before));
      }
    }
  }
}
