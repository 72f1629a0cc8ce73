package io.idempotent.examples.http;

import io.idempotent.examples.DemoEnvironment;
import io.idempotent.examples.shop.OrderService;
import io.idempotent.examples.shop.PaymentGateway;
import io.idempotent.examples.shop.Warehouse;
import io.idempotent.http.ClientScopeResolver;
import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyFilter;
import io.idempotent.http.KeyRequirement;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The shop's checkout over HTTP: {@code POST /orders} in embedded Jetty on localhost, behind the {@code
 * Idempotency-Key} filter on the demo's store. The client is named by the {@code X-User} header (a stand-in
 * for authentication). Close it to stop.
 */
public final class CheckoutServer implements AutoCloseable {

  /** The header that names the shop's user in the demo. */
  public static final String USER_HEADER = "X-User";

  private final Server server;
  private final int port;
  private final CheckoutServlet servlet;

  private CheckoutServer(Server server, int port, CheckoutServlet servlet) {
    this.server = server;
    this.port = port;
    this.servlet = servlet;
  }

  /** Starts on {@code port} of 127.0.0.1 (0: any free port). */
  public static CheckoutServer start(DemoEnvironment env, int port) throws Exception {
    CheckoutServlet servlet = new CheckoutServlet(new OrderService(new PaymentGateway(), new Warehouse()));
    IdempotencyFilter filter = new IdempotencyFilter(HttpIdempotencySettings.builder()
        .idempotency(env.idempotency())
        .namespace("shop.http")
        .route(KeyRequirement.REQUIRED, "/orders", "POST")
        .clientScope(ClientScopeResolver.header(USER_HEADER))
        .build());
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(servlet), "/*");
    server.setHandler(context);
    server.start();
    return new CheckoutServer(server, connector.getLocalPort(), servlet);
  }

  public int port() {
    return port;
  }

  /** How many times the checkout's handler ran. */
  public int executions() {
    return servlet.executions();
  }

  /** Blocks until the server stops. */
  public void join() throws InterruptedException {
    server.join();
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException("Jetty did not stop", e);
    }
  }
}
