package io.idempotent.http;

import io.idempotent.CallOutcome;
import io.idempotent.runtime.Idempotency;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A filter in front of the idempotency filter: sets a header of its own before it, and notes {@link
 * Idempotency#lastOutcome()} after each request.
 */
final class OutcomeProbe extends HttpFilter {
  private static final long serialVersionUID = 1L;


  final List<String> outcomes = new CopyOnWriteArrayList<>();

  @Override
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    response.setHeader("X-Frame-Options", "DENY"); // as a security-headers filter would
    chain.doFilter(request, response);
    CallOutcome outcome = Idempotency.lastOutcome();
    outcomes.add(request.getRequestURI() + " " + outcome);
  }
}
