package io.idempotent.http;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/** An embedded Tomcat 11 on an ephemeral 127.0.0.1 port, serving the contexts given. */
final class TomcatServer implements ServletServer {

  /**
   * Held so that its level stays. Tomcat logs each request line it refuses, with a stack trace, and when it
   * stops, the library's lease-renewer thread (started during a request) as a possible leak: noise here.
   */
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

  static {
    TOMCAT_LOG.setLevel(Level.SEVERE);
  }

  private final Tomcat tomcat;
  private final Path baseDir;
  private final int port;

  private TomcatServer(Tomcat tomcat, Path baseDir, int port) {
    this.tomcat = tomcat;
    this.baseDir = baseDir;
    this.port = port;
  }

  /**
   * The contexts given, with Tomcat's default settings or, with {@code ambiguousPaths}, encoded slashes and
   * backslashes decoded and backslashes allowed.
   */
  static TomcatServer start(boolean ambiguousPaths, WebApp... apps) throws Exception {
    Path baseDir = Files.createTempDirectory("idempotent-tomcat");
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    if (ambiguousPaths) {
      connector.setEncodedSolidusHandling("decode");
      connector.setEncodedReverseSolidusHandling("decode");
      connector.setAllowBackslash(true);
      connector.setProperty("relaxedPathChars", "\\");
    }
    tomcat.setConnector(connector);
    int n = 0;
    for (WebApp app : apps) {
      Context context = tomcat.addContext(app.contextPath, baseDir.toString());
      for (Filter f : app.filters) {
        String name = "filter-" + n++;
        FilterDef def = new FilterDef();
        def.setFilterName(name);
        def.setFilter(f);
        def.setAsyncSupported("true");
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName(name);
        map.addURLPattern("/*");
        context.addFilterMap(map);
      }
      for (Map.Entry<String, HttpServlet> e : app.servlets.entrySet()) {
        String name = "servlet-" + n++;
        Tomcat.addServlet(context, name, e.getValue()).setAsyncSupported(true);
        addMapping(context, e.getKey(), name);
      }
    }
    tomcat.start();
    return new TomcatServer(tomcat, baseDir, connector.getLocalPort());
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public void close() {
    Stopping.unchecked(() -> {
      tomcat.stop();
      tomcat.destroy();
    });
    try (Stream<Path> files = Files.walk(baseDir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a file Tomcat still holds: the temporary directory is left behind
    }
  }

  /** Maps {@code pattern} to the servlet {@code name}; the pattern is given decoded, as Tomcat's own embedding does. */
  @SuppressWarnings("deprecation") // the one call Tomcat's embedded API offers for a decoded pattern
  private static void addMapping(org.apache.catalina.Context context, String pattern, String name) {
    context.addServletMappingDecoded(pattern, name);
  }
}
