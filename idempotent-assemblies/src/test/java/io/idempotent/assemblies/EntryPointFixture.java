package io.idempotent.assemblies;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.CallOutcome;
import io.idempotent.CallResult;
import io.idempotent.Effects;
import io.idempotent.http.IdempotencyFilter;
import io.idempotent.runtime.Idempotency;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.function.Supplier;

/** How a caller reaches the business method through one entry point. */
interface EntryPointFixture {

  /** One attempt of caller {@code caller} (0, 1, … ) at the run's key, made as the application makes it. */
  Answer attempt(CellRun run, int caller);

  /** Checks of the entry point's own once the cell's callers have their answers. */
  default void check(CellRun run) {}

  static EntryPointFixture of(EntryPoint entryPoint) {
    return switch (entryPoint) {
      case WOVEN_METHOD -> new WovenMethod();
      case PROGRAMMATIC_CALL -> new ProgrammaticCall();
      case HTTP_FILTER -> new HttpFilter();
      case SPRING_SERVICE -> new SpringService();
      case SCHEDULED_JOB -> new ScheduledJob();
      case EVENT_LISTENER -> new EventListener();
    };
  }

  /** {@code call} in the cell's caller context on {@code instance}; what it threw, classified. */
  static Answer inContext(CellRun run, Instance instance, Supplier<Answer.Returned> call) {
    CallerContext context = run.cell.context();
    try {
      return instance.attempt(context, () -> instance.within(context, call));
    } catch (RuntimeException e) {
      return Answer.of(e);
    }
  }

  /** The woven method, called directly. */
  final class WovenMethod implements EntryPointFixture {
    private final Payments payments = new Payments();

    @Override
    public Answer attempt(CellRun run, int caller) {
      Cell cell = run.cell;
      return inContext(run, run.deployment.instance(0), () ->
          PaymentService.returned(payments.pay(cell.effects(), cell.context().nested(), run.key)));
    }
  }

  /** {@code Idempotency.call(…)} with the effects declared on the call. */
  final class ProgrammaticCall implements EntryPointFixture {

    @Override
    public Answer attempt(CellRun run, int caller) {
      Cell cell = run.cell;
      return inContext(run, run.deployment.instance(0), () -> {
        CallResult<Payment> result = pay(cell.effects(), cell.context().nested(), run.key);
        return new Answer.Returned(result.value(), result.outcome());
      });
    }

    private static CallResult<Payment> pay(Effects effects, boolean nested, String key) {
      return Idempotency.global().call("assemblies.programmatic", Payment.class).key(key).effects(effects)
          .execute(() -> {
            if (nested) {
              pay(effects, false, CellRun.innerKey(key));
            }
            return Business.pay(key, effects);
          });
    }
  }

  /** A client of the filter: POSTs with the key, and retries a 409 or a 503 as clients do. */
  final class HttpFilter implements EntryPointFixture {

    @Override
    public Answer attempt(CellRun run, int caller) {
      String requestId = UUID.randomUUID().toString();
      HttpResponse<String> response = ShopServer.pay(run.key, requestId);
      boolean replayed = response.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER).orElse("").equals("true");
      if (replayed) {
        run.replayedRequests.add(requestId);
      }
      String outcome = response.headers().firstValue(PaymentServlet.OUTCOME).orElse(null);
      return switch (response.statusCode()) {
        case 201 -> new Answer.Returned(response.body(),
            replayed ? CallOutcome.REPLAYED : CallOutcome.valueOf(outcome));
        case 409 -> new Answer.Retry("409: in progress");
        case 503 -> switch (response.headers().firstValue(PaymentServlet.FAILURE).orElse("")) {
          case "method" -> new Answer.BusinessFailed();
          case "caller" -> new Answer.CallerRolledBack(
              new Answer.Returned(response.body(), CallOutcome.valueOf(outcome)));
          case "serialization" -> new Answer.Retry("503: serialization failure");
          default -> new Answer.Unexpected("503 " + response.body(), null);
        };
        case 500 -> {
          Throwable thrown = run.serverErrors.poll();
          yield run.expected.refused() && thrown != null ? new Answer.Refused(thrown)
              : new Answer.Unexpected("500 " + response.body(), thrown);
        }
        default -> new Answer.Unexpected(response.statusCode() + " " + response.body(), null);
      };
    }

    /** The filter never had the application handle one request twice, nor a request it answered with a replay. */
    @Override
    public void check(CellRun run) {
      assertThat(run.handled).as("%s: requests the servlet handled more than once", run.cell)
          .allSatisfy((id, n) -> assertThat(n.get()).isOne());
      assertThat(run.replayedRequests).as("%s: replayed requests the servlet handled", run.cell)
          .noneMatch(run.handled::containsKey);
    }
  }

  /** The Spring service's methods, one per caller context, through the context's proxies. */
  final class SpringService implements EntryPointFixture {

    @Override
    public Answer attempt(CellRun run, int caller) {
      Instance instance = run.deployment.instance(0);
      PaymentService service = instance.spring.getBean(PaymentService.class);
      Cell cell = run.cell;
      Effects effects = cell.effects();
      try {
        return instance.attempt(cell.context(), () -> switch (cell.context()) {
          case NONE -> service.payWithoutTransaction(effects, run.key);
          case SPRING_TRANSACTION -> service.payInTransaction(effects, false, run.key);
          case NESTED -> service.payInTransaction(effects, true, run.key);
          case REQUIRES_NEW -> service.payAroundANewTransaction(effects, run.key);
          case JDBI_TRANSACTION -> service.payInJdbiTransaction(effects, run.key);
        });
      } catch (RuntimeException e) {
        return Answer.of(e);
      }
    }
  }

  /** The job fired by the instances in turn: caller 0 on the first, caller 1 on the second, and so on. */
  final class ScheduledJob implements EntryPointFixture {

    @Override
    public Answer attempt(CellRun run, int caller) {
      Instance instance = run.deployment.instance(caller % 2);
      SettlementJob job = instance.job;
      job.configure(run.cell.effects(), run.cell.context().nested());
      return inContext(run, instance, () -> {
        job.settle();
        return new Answer.Returned(job.lastSettlement(), Idempotency.lastOutcome());
      });
    }
  }

  /** The same event published again: the listener runs on the publishing thread, in its caller's context. */
  final class EventListener implements EntryPointFixture {

    @Override
    public Answer attempt(CellRun run, int caller) {
      Instance instance = run.deployment.instance(0);
      PaymentRequested event = PaymentRequested.of(run.cell.effects(), run.key, run.cell.context().nested());
      return inContext(run, instance, () -> {
        instance.spring.publishEvent(event);
        return new Answer.Returned(null, Idempotency.lastOutcome());
      });
    }
  }
}
