package io.idempotent.http;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A shop server in a JVM of its own, for {@link HttpProcessRestartTest}: the filter on the H2 table store
 * in {@code h2File}, in front of an endpoint that records each completed order as a row of
 * {@value #ORDERS} in the same H2 file. {@code POST /orders} completes at once; {@code POST /held-orders}
 * prints {@value #HANDLER_STARTED} and waits for {@code releaseFile} to exist before it completes. Prints
 * {@code PORT <n>} once it listens on an ephemeral port of 127.0.0.1, then serves until it is killed.
 *
 * <p>Arguments: {@code h2File leaseMillis releaseFile}.
 */
public final class ShopServerMain {

  static final String ORDERS = "shop_orders";
  static final String HANDLER_STARTED = "HANDLER-STARTED";
  static final String PORT = "PORT ";

  private ShopServerMain() {}

  public static void main(String[] args) throws Exception {
    String h2File = args[0];
    Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
    Path release = Path.of(args[2]);
    HikariDataSource pool = pool(h2File);
    createOrdersTable(pool);
    IdempotencyFilter filter = new IdempotencyFilter(HttpIdempotencySettings.builder()
        .idempotency(Idempotency.create(IdempotencyConfig.builder()
            .store(JdbiIdempotencyStore.builder(pool).createSchema(true).build())
            .build()))
        .lease(lease)
        .build());
    JettyServer server = JettyServer.start(new Orders(pool, release), filter);
    System.out.println(PORT + server.port());
    System.out.flush();
    Thread.currentThread().join();
  }

  /**
   * The H2 file with {@code WRITE_DELAY=0}: each commit is written to the file when it happens. With H2's
   * default (500 ms) a commit can still be in the process's memory when it is killed, and the record of a
   * response already sent is lost with it.
   */
  static String url(String h2File) {
    return "jdbc:h2:file:" + h2File + ";LOCK_TIMEOUT=10000;WRITE_DELAY=0";
  }

  private static HikariDataSource pool(String h2File) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(url(h2File));
    c.setUsername("sa");
    c.setPassword("");
    c.setMaximumPoolSize(4);
    c.setPoolName("shop-process");
    return new HikariDataSource(c);
  }

  private static void createOrdersTable(DataSource pool) throws SQLException {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS " + ORDERS + " (id INT AUTO_INCREMENT PRIMARY KEY,"
          + " idempotency_key VARCHAR(255) NOT NULL, request VARCHAR(1000) NOT NULL, pid BIGINT NOT NULL)");
    }
  }

  /** The endpoint: one row per completed order, its id in the answer. */
  private static final class Orders extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient DataSource pool;
    private final transient Path release;

    Orders(DataSource pool, Path release) {
      this.pool = pool;
      this.release = release;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      String request = new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (req.getRequestURI().equals("/held-orders")) {
        System.out.println(HANDLER_STARTED);
        System.out.flush();
        awaitRelease();
      } else if (!req.getRequestURI().equals("/orders")) {
        resp.sendError(404);
        return;
      }
      long pid = ProcessHandle.current().pid();
      long id = insert((String) req.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE), request, pid);
      resp.setStatus(201);
      resp.setContentType("application/json");
      resp.setHeader("Location", "/orders/" + id);
      resp.getWriter().write("{\"order\":" + id + ",\"pid\":" + pid + ",\"request\":\"" + request.replace("\"", "'")
          + "\"}");
    }

    private long insert(String key, String request, long pid) throws IOException {
      try (Connection c = pool.getConnection();
          PreparedStatement s = c.prepareStatement("INSERT INTO " + ORDERS + " (idempotency_key, request, pid)"
              + " VALUES (?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
        s.setString(1, key);
        s.setString(2, request);
        s.setLong(3, pid);
        s.executeUpdate();
        try (ResultSet keys = s.getGeneratedKeys()) {
          keys.next();
          return keys.getLong(1);
        }
      } catch (SQLException e) {
        throw new IOException(e);
      }
    }

    private void awaitRelease() throws IOException {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!Files.exists(release)) {
        if (System.nanoTime() - deadline > 0) {
          throw new IOException("never released: " + release);
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
      }
    }
  }
}
