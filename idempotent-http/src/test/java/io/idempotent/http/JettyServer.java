package io.idempotent.http;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.MultipartConfigElement;
import jakarta.servlet.http.HttpServlet;
import java.net.URI;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 on an ephemeral localhost port: the filters given, in order, in front of one
 * servlet on every path.
 */
final class JettyServer implements AutoCloseable {

  private final Server server;
  private final int port;

  private JettyServer(Server server, int port) {
    this.server = server;
    this.port = port;
  }

  static JettyServer start(HttpServlet app, Filter... filters) throws Exception {
    return start(app, null, filters);
  }

  /** As {@link #start(HttpServlet, Filter...)}, the servlet with {@code multipart} as its multipart configuration (null: none). */
  static JettyServer start(HttpServlet app, MultipartConfigElement multipart, Filter... filters) throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    for (Filter f : filters) {
      FilterHolder holder = new FilterHolder(f);
      holder.setAsyncSupported(true);
      context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
    }
    ServletHolder servlet = new ServletHolder(app);
    servlet.setAsyncSupported(true);
    if (multipart != null) {
      servlet.getRegistration().setMultipartConfig(multipart);
    }
    context.addServlet(servlet, "/*");
    server.setHandler(context);
    server.start();
    return new JettyServer(server, connector.getLocalPort());
  }

  int port() {
    return port;
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port + pathAndQuery);
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
