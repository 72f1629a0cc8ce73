package io.idempotent.http;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application behind the filter in the tests: each path behaves in one way, and every execution is
 * counted per path.
 */
class ShopServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;


  private final Map<String, AtomicInteger> executions = new ConcurrentHashMap<>();
  private final AtomicInteger orderNumbers = new AtomicInteger(1000);
  /** Released by the test to let {@code /slow} finish. */
  final CountDownLatch gate = new CountDownLatch(1);
  /** Counted down when {@code /slow} has started. */
  final CountDownLatch slowStarted = new CountDownLatch(1);
  volatile int bigBodyBytes = 4096;

  int executions(String path) {
    AtomicInteger n = executions.get(path);
    return n == null ? 0 : n.get();
  }

  int totalExecutions() {
    return executions.values().stream().mapToInt(AtomicInteger::get).sum();
  }

  @Override
  protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String path = req.getRequestURI();
    int n = executions.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
    byte[] body = req.getInputStream().readAllBytes();
    switch (path) {
      case "/orders", "/other" -> order(req, resp, body);
      case "/slow" -> {
        slowStarted.countDown();
        await();
        order(req, resp, body);
      }
      case "/sleepy" -> {
        sleep(300);
        order(req, resp, body);
      }
      case "/flaky" -> {
        if (n == 1) {
          resp.setStatus(500);
          resp.setContentType("text/plain");
          resp.getWriter().write("database hiccup");
        } else {
          order(req, resp, body);
        }
      }
      case "/declined" -> {
        resp.setStatus(402);
        resp.setContentType("application/json");
        resp.getWriter().write("{\"declined\":\"insufficient funds\",\"attempt\":" + n + "}");
      }
      case "/throws" -> {
        resp.setStatus(201);
        resp.setHeader("Location", "/orders/half");
        resp.getOutputStream().write("partial-output".getBytes(StandardCharsets.UTF_8));
        throw new IllegalStateException("the payment provider vanished half-way");
      }
      case "/crlf" -> {
        resp.setStatus(201);
        resp.setHeader("Location", "/orders/7\r\nSet-Cookie: injected=1");
        resp.getWriter().write("created");
      }
      case "/big" -> {
        resp.setStatus(200);
        resp.setContentType("application/octet-stream");
        byte[] chunk = new byte[1024];
        for (int i = 0; i < bigBodyBytes / chunk.length; i++) {
          java.util.Arrays.fill(chunk, (byte) ('a' + i % 26));
          resp.getOutputStream().write(chunk);
        }
      }
      case "/streamed" -> {
        resp.setContentType("text/plain");
        resp.getWriter().write("first line\n");
        resp.flushBuffer();
        resp.getWriter().write("second line, execution " + n + "\n");
      }
      case "/flushed-at-end" -> {
        // as Spring MVC writes a ResponseEntity: status and headers, the body, then flushBuffer()
        resp.setStatus(201);
        resp.setHeader("Location", "/orders/" + orderNumbers.incrementAndGet());
        resp.setContentType("application/json");
        resp.getOutputStream().write(("{\"execution\":" + n + "}").getBytes(StandardCharsets.UTF_8));
        resp.getOutputStream().flush();
        resp.flushBuffer();
      }
      case "/async" -> {
        AsyncContext async = req.startAsync();
        async.start(() -> {
          try {
            HttpServletResponse r = (HttpServletResponse) async.getResponse();
            r.setStatus(202);
            r.setContentType("text/plain");
            r.getWriter().write("accepted asynchronously, execution " + n);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          } finally {
            async.complete();
          }
        });
      }
      case "/form" -> {
        resp.setStatus(201);
        resp.setContentType("text/plain;charset=utf-8");
        resp.getWriter().write("item=" + req.getParameter("item") + " qty=" + req.getParameter("qty"));
      }
      default -> resp.sendError(404);
    }
  }

  private void order(HttpServletRequest req, HttpServletResponse resp, byte[] body) throws IOException {
    int order = orderNumbers.incrementAndGet();
    resp.setStatus(201);
    resp.setContentType("application/json;charset=utf-8");
    resp.setHeader("Location", "/orders/" + order);
    resp.setHeader("ETag", "\"v" + order + "\"");
    resp.addHeader("Set-Cookie", "session=" + UUID.randomUUID() + "; HttpOnly");
    resp.setHeader("X-Trace", UUID.randomUUID().toString());
    String user = req.getUserPrincipal() == null ? "" : req.getUserPrincipal().getName();
    resp.getWriter().write("{\"order\":" + order + ",\"user\":\"" + user + "\",\"request\":\""
        + new String(body, StandardCharsets.UTF_8).replace("\"", "'") + "\"}");
  }

  private void await() {
    try {
      if (!gate.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
