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
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;

/**
 * An embedded Jetty 12 on an ephemeral localhost port: the filters given, in order, in front of one
 * servlet on every path, or the contexts given (each a {@link WebApp}).
 */
final class JettyServer implements ServletServer {

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

  /** What Jetty does with a path its URI compliance calls ambiguous (an encoded '/', an empty segment, ...). */
  enum AmbiguousPaths {
    /** Refuses the request with 400: Jetty's default. */
    REFUSED,
    /** Accepts it (compliance {@code UNSAFE}) and decodes it for the servlets. */
    DECODED,
    /** Accepts it (compliance {@code UNSAFE}) and throws from {@code getServletPath()} and {@code getPathInfo()}. */
    UNDECODED
  }

  /** The contexts given, with Jetty's default settings but for {@code ambiguousPaths}. */
  static JettyServer start(AmbiguousPaths ambiguousPaths, WebApp... apps) throws Exception {
    Server server = new Server();
    HttpConfiguration http = new HttpConfiguration();
    if (ambiguousPaths != AmbiguousPaths.REFUSED) {
      http.setUriCompliance(UriCompliance.UNSAFE);
    }
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ContextHandlerCollection contexts = new ContextHandlerCollection();
    for (WebApp app : apps) {
      ServletContextHandler context = new ServletContextHandler(app.contextPath.isEmpty() ? "/" : app.contextPath);
      for (Filter f : app.filters) {
        context.addFilter(new FilterHolder(f), "/*", EnumSet.of(DispatcherType.REQUEST));
      }
      app.servlets.forEach((pattern, servlet) -> context.addServlet(new ServletHolder(servlet), pattern));
      context.getServletHandler().setDecodeAmbiguousURIs(ambiguousPaths == AmbiguousPaths.DECODED);
      contexts.addHandler(context);
    }
    server.setHandler(contexts);
    server.start();
    return new JettyServer(server, connector.getLocalPort());
  }

  @Override
  public int port() {
    return port;
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port + pathAndQuery);
  }

  @Override
  public void close() {
    Stopping.unchecked(server::stop);
  }
}
