package io.idempotent.runtime;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.Idempotent;
import io.idempotent.internal.IdempotencyEngine;
import io.idempotent.internal.MethodPlan;
import io.idempotent.internal.MethodSignatureInfo;
import io.idempotent.spi.ResultCodec;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The entry point: installs the configuration the woven {@link Idempotent} aspect uses, runs
 * programmatic idempotent calls, validates annotated classes and tells callers whether their last
 * result was replayed. Thread-safe.
 *
 * <pre>{@code
 * Idempotency.install(IdempotencyConfig.builder().store(new CaffeineIdempotencyStore()).build());
 * Idempotency.validate(PaymentService.class);            // fail fast on a bad expression
 * Receipt r = payments.charge("order-42", amount);       // woven: runs once per key
 * boolean replayed = Idempotency.lastOutcome() == CallOutcome.REPLAYED;
 * }</pre>
 */
public final class Idempotency {

  private final IdempotencyEngine engine;
  private final IdempotencyConfig config;

  private Idempotency(GlobalEngine.Installed installed) {
    this.engine = installed.engine();
    this.config = installed.config();
  }

  /** Installs {@code config} for the woven aspect and returns its entry point. */
  public static Idempotency install(IdempotencyConfig config) {
    return new Idempotency(GlobalEngine.install(config));
  }

  /**
   * The configuration the aspect uses; if none was installed, one is built from properties and the
   * store providers on the class path ({@link #fromEnvironment()}).
   */
  public static Idempotency global() {
    return new Idempotency(GlobalEngine.get());
  }

  /**
   * Forgets the installed configuration, so the next call configures from the environment again.
   * Stores that were built from properties are closed; stores passed to {@link #install} are not.
   */
  public static void uninstall() {
    GlobalEngine.reset();
  }

  /**
   * Removes this configuration from the aspect if it is still the one installed, and does nothing when
   * another was installed since: for a container (an application context) that installed it and now
   * shuts down while another may have replaced it. Returns whether it was removed.
   */
  public boolean uninstallIfInstalled() {
    return GlobalEngine.resetIf(engine);
  }

  /** An independent entry point for {@code config}, not used by the aspect (for programmatic calls). */
  public static Idempotency create(IdempotencyConfig config) {
    return new Idempotency(GlobalEngine.Installed.of(config));
  }

  /**
   * A configuration from properties ({@code idempotent.store}, {@code idempotent.ttl}, {@code
   * idempotent.lease}, {@code idempotent.enabled}, {@code idempotent.<store>.*}) in system properties,
   * environment variables or {@code idempotent.properties}, and the store providers on the class path.
   *
   * @throws IdempotencyConfigurationException listing the available stores when none fits
   */
  public static IdempotencyConfig fromEnvironment() {
    return EnvironmentConfiguration.load();
  }

  /**
   * A configuration from {@code properties}, named and read as {@link #fromEnvironment()} reads them
   * ({@code -} and {@code _} taken as {@code .}, case-insensitively), and the store providers {@code loader}
   * sees: for an application that keeps its settings elsewhere, and for tests.
   *
   * @throws IdempotencyConfigurationException naming the property whose value is bad, or listing the
   *     available stores when none fits
   */
  public static IdempotencyConfig fromProperties(Map<String, String> properties, ClassLoader loader) {
    return EnvironmentConfiguration.load(properties, loader);
  }

  /**
   * How the last idempotent call on this thread ended: {@link CallOutcome#EXECUTED} when the method ran
   * (whether it returned or threw), {@link CallOutcome#REPLAYED} for a recorded result or final failure,
   * {@link CallOutcome#SKIPPED} or {@link CallOutcome#UNPROTECTED}; null when the call was refused
   * without running (key missing or reused, in progress, store failing) or none ran on this thread yet.
   * A web layer uses it to mark replayed responses, error responses included.
   */
  public static CallOutcome lastOutcome() {
    return IdempotencyEngine.lastOutcome();
  }

  /**
   * Compiles the annotation of every {@link Idempotent} method of {@code classes}, so that a method the
   * aspect was not woven into (compiled by javac with no weaving step), a bad expression or duration, a
   * key whose text would be an identity hash, a parameter that cannot be fingerprinted (a {@code
   * Thread}, a stream, a function...), a result that cannot be recorded (a stream, a connection...), a
   * final exception type a replay could not recreate, a return type the codec could not read back (as
   * the installed configuration's codec, or the default one when none is installed, sees it), or a store
   * name the installed configuration does not have, fails at start-up or in a test rather than at first
   * call. Parameter names are those the woven calls use: recorded by ajc from the class file, so a class
   * compiled without {@code -parameters} is judged as it runs.
   *
   * @throws IdempotencyConfigurationException listing every problem found
   */
  public static void validate(Class<?>... classes) {
    ResultCodec codec = GlobalEngine.installedCodec();
    IdempotencyConfig installed = GlobalEngine.installedConfig();
    List<String> problems = new ArrayList<>();
    for (Class<?> c : classes) {
      for (Method m : c.getDeclaredMethods()) {
        // a bridge (an override with a narrower return type) carries a copy of the annotation, but only
        // forwards to the method it bridges, whose execution the aspect advises
        if (m.isAnnotationPresent(Idempotent.class) && !m.isBridge()) {
          String notWoven = MethodPlan.notWoven(m);
          if (notWoven != null) {
            problems.add(notWoven);
          }
          try {
            // the names the woven calls use, so that a class compiled without -parameters is judged as it runs
            MethodPlan.compile(m, MethodPlan.wovenParameterNames(m)).call().checkResultType(codec);
          } catch (IdempotencyConfigurationException e) {
            problems.add(e.getMessage());
          }
          String store = m.getAnnotation(Idempotent.class).store();
          if (installed != null && installed.enabled() && !store.isEmpty() && !installed.stores().containsKey(store)) {
            problems.add(MethodSignatureInfo.describe(m) + " names the store '" + store + "', but no store of that"
                + " name is configured, so its calls would fail; configured stores: " + installed.stores().keySet());
          }
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new IdempotencyConfigurationException(String.join("\n", problems));
    }
  }

  public IdempotencyConfig config() {
    return config;
  }

  /** One-time tokens in {@code namespace}, kept in the default store. */
  public OneTimeTokens tokens(String namespace) {
    return tokens(namespace, "");
  }

  /** One-time tokens in {@code namespace}, kept in the named store. */
  public OneTimeTokens tokens(String namespace, String storeName) {
    return new OneTimeTokens(config.store(storeName), namespace);
  }

  /** Starts a programmatic call in namespace {@code name} whose result has type {@code resultType}. */
  public <T> IdempotentCall<T> call(String name, Class<T> resultType) {
    return new IdempotentCall<>(engine, name, resultType);
  }

  /** Like {@link #call(String, Class)} for a generic result type such as {@code List<Receipt>}. */
  public <T> IdempotentCall<T> call(String name, Type resultType) {
    return new IdempotentCall<>(engine, name, resultType);
  }

  /**
   * Starts a batch of messages handled together in namespace {@code name}, each at most once per key, whose
   * results have type {@code resultType} (docs/MESSAGING.md, Batches).
   */
  public <T> IdempotentBatch<T> batch(String name, Class<T> resultType) {
    return new IdempotentBatch<>(engine, name, resultType);
  }

  /** Like {@link #batch(String, Class)} for a generic result type such as {@code List<Receipt>}. */
  public <T> IdempotentBatch<T> batch(String name, Type resultType) {
    return new IdempotentBatch<>(engine, name, resultType);
  }
}
