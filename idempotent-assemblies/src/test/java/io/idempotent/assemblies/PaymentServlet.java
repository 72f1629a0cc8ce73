package io.idempotent.assemblies;

import io.idempotent.http.IdempotencyFilter;
import io.idempotent.runtime.Idempotency;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application behind the filter: runs the woven business method with the request's key, in the cell's
 * caller context (a Spring transaction, as most such endpoints do, or another). It answers 201 with the
 * payment; 503 when the payment failed for now (the method's failure, the caller's own failure after it, a
 * transaction that failed to serialize), which the filter does not record, so the client retries; anything
 * else it lets through to the container (500), as an application with no handler for it does.
 */
public final class PaymentServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;

  /** The request's id, so that the suite can tell how often the servlet handled each request. */
  static final String REQUEST_ID = "X-Request-Id";
  /** How the business call ended (the filter does not record this header: a replay has none). */
  static final String OUTCOME = "X-Outcome";
  /** Why a 503: {@code method}, {@code caller} or {@code serialization}. */
  static final String FAILURE = "X-Failure";

  private final transient Payments payments = new Payments();

  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
    CellRun run = CellRun.current();
    run.handled.computeIfAbsent(request.getHeader(REQUEST_ID), id -> new AtomicInteger()).incrementAndGet();
    String key = (String) request.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE);
    Cell cell = run.cell;
    Instance instance = run.deployment.instance(0);
    Answer.Returned paid;
    try {
      paid = instance.attempt(cell.context(), () -> instance.within(cell.context(), () -> {
        Payment payment = payments.pay(cell.effects(), cell.context().nested(), key);
        return new Answer.Returned(payment.toString(), Idempotency.lastOutcome());
      }));
    } catch (BusinessFailure e) {
      unavailable(response, "method", null);
      return;
    } catch (CallerFailure e) {
      unavailable(response, "caller", e.returned);
      return;
    } catch (RuntimeException e) {
      if (Answer.serializationFailure(e)) {
        unavailable(response, "serialization", null);
        return;
      }
      run.serverErrors.add(e);
      throw e;
    }
    response.setStatus(201);
    response.setHeader(OUTCOME, paid.outcome().name());
    response.setContentType("text/plain;charset=UTF-8");
    response.getOutputStream().write(((String) paid.value()).getBytes(StandardCharsets.UTF_8));
  }

  private static void unavailable(HttpServletResponse response, String why, Answer.Returned returned)
      throws IOException {
    response.setStatus(503);
    response.setHeader(FAILURE, why);
    if (returned != null) {
      response.setHeader(OUTCOME, returned.outcome().name());
      response.setContentType("text/plain;charset=UTF-8");
      response.getOutputStream().write(((String) returned.value()).getBytes(StandardCharsets.UTF_8));
    }
  }
}
