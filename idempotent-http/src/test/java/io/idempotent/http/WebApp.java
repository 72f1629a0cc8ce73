package io.idempotent.http;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One context of a test server: its path ({@code ""} for the root, as the Servlet API names it), the
 * filters in front of its servlets on every path, and its servlets by URL pattern ({@code /payments},
 * {@code /api/*}, {@code *.do}, {@code /}, {@code /*}).
 */
final class WebApp {

  final String contextPath;
  final List<Filter> filters;
  final Map<String, HttpServlet> servlets = new LinkedHashMap<>();

  private WebApp(String contextPath, List<Filter> filters) {
    this.contextPath = contextPath;
    this.filters = filters;
  }

  static WebApp at(String contextPath, Filter... filters) {
    return new WebApp(contextPath, List.of(filters));
  }

  WebApp servlet(String pattern, HttpServlet servlet) {
    servlets.put(pattern, servlet);
    return this;
  }
}
