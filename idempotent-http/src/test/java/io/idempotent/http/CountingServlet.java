package io.idempotent.http;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts its executions and answers 201 with its name, the path it was mapped by and the execution's number. */
final class CountingServlet extends HttpServlet {

  private static final long serialVersionUID = 1L;

  final String name;
  private final AtomicInteger executions = new AtomicInteger();

  CountingServlet(String name) {
    this.name = name;
  }

  int executions() {
    return executions.get();
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    int n = executions.incrementAndGet();
    req.getInputStream().readAllBytes();
    String info = req.getPathInfo();
    resp.setStatus(201);
    resp.setContentType("application/json");
    String path = req.getServletPath() + (info == null ? "" : info);
    resp.getWriter().write("{\"servlet\":\"" + name + "\",\"path\":\"" + path + "\",\"execution\":" + n + "}");
  }

  @Override
  public String toString() {
    return name;
  }
}
