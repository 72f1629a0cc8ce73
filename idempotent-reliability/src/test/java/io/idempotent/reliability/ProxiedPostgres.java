package io.idempotent.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.net.URI;

/** Pools that reach PostgreSQL through a {@link FaultProxy}, with timeouts short enough for fault tests. */
final class ProxiedPostgres {

  private ProxiedPostgres() {}

  /** A proxy in front of the PostgreSQL server the suite uses. */
  static FaultProxy proxy() throws IOException {
    Database.POSTGRES.requireReachable();
    URI uri = URI.create(Database.POSTGRES.url.substring("jdbc:".length()));
    return new FaultProxy(uri.getHost(), uri.getPort());
  }

  /**
   * A pool through {@code proxy}: a connection is waited for at most a second, and a socket that
   * neither answers nor closes fails after ten.
   */
  /**
   * A pool through {@code proxy} as an application has it by default (HikariCP's defaults: ten
   * connections, a connection waited for 30 s, sockets without a read timeout).
   */
  static HikariDataSource defaultPool(FaultProxy proxy, String name) {
    return new HikariDataSource(defaults(proxy, name));
  }

  /**
   * As {@link #defaultPool}, with the connection timeout the idempotent-jdbi README recommends for a pool the
   * store shares (5 s): a pool that checks its idle connections on the borrowing thread then gives up there.
   */
  static HikariDataSource recommendedPool(FaultProxy proxy, String name) {
    HikariConfig hc = defaults(proxy, name);
    hc.setConnectionTimeout(5_000);
    return new HikariDataSource(hc);
  }

  private static HikariConfig defaults(FaultProxy proxy, String name) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("proxied-" + name);
    hc.setJdbcUrl(proxy.route(Database.POSTGRES.url));
    hc.setUsername(Database.POSTGRES.user);
    hc.setPassword(Database.POSTGRES.password);
    return hc;
  }

  static HikariDataSource pool(FaultProxy proxy, int size, String name) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("proxied-" + name);
    String url = proxy.route(Database.POSTGRES.url);
    hc.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "connectTimeout=2&socketTimeout=10");
    hc.setUsername(Database.POSTGRES.user);
    hc.setPassword(Database.POSTGRES.password);
    hc.setMaximumPoolSize(size);
    hc.setMinimumIdle(1);
    hc.setConnectionTimeout(1_000);
    hc.setValidationTimeout(500);
    return new HikariDataSource(hc);
  }
}
