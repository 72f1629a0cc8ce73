package io.idempotent.examples;

import io.idempotent.examples.shop.ShopSchema;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.JdbiStoreProvider;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import io.idempotent.spi.StoreSettings;
import java.util.HashMap;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;

/**
 * The database and idempotency engine of one run of the demo. Opening it installs the configuration
 * the woven {@code @Idempotent} methods use: the JDBI table store, and a listener that counts outcomes.
 * Closing it uninstalls the configuration and closes the store's pool. Its accessors may be used from
 * any thread; open and close it from one.
 *
 * <p>The store comes from {@link JdbiStoreProvider}, the provider {@code Idempotency.fromEnvironment()}
 * picks when {@code idempotent-jdbi} is on the class path: the same settings, the same defaults (with
 * no {@code url}, the embedded H2 file in {@code ~/.idempotent}). The demo calls the provider itself
 * because it opens the same store more than once (three instances in the scheduled-job scenario) and
 * adds a listener. Its records go to a table of their own, {@value #TABLE}, so that {@code --fresh}
 * touches nothing else in a database an application may share.
 */
public final class DemoEnvironment implements AutoCloseable {

  /** The table of the demo's idempotency records, unless {@code idempotent.jdbi.table} names another. */
  public static final String TABLE = "shop_idempotency_record";

  private final Map<String, String> settings;
  private final JdbiIdempotencyStore store;
  private final OutcomeTally tally = new OutcomeTally();
  private final Idempotency idempotency;

  private DemoEnvironment(Map<String, String> jdbiSettings) {
    Map<String, String> s = new HashMap<>(jdbiSettings);
    s.putIfAbsent("table", TABLE);
    this.settings = Map.copyOf(s);
    this.store = openStore();
    try {
      ShopSchema.create(store.jdbi());
      this.idempotency = Idempotency.install(IdempotencyConfig.builder()
          .store("jdbi", store)
          .defaultStore("jdbi")
          .listener(tally)
          .build());
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Opens the store from {@code jdbiSettings} (the {@code idempotent.jdbi.*} settings without their
   * prefix; empty for the embedded default) and installs it for the woven methods.
   */
  public static DemoEnvironment open(Map<String, String> jdbiSettings) {
    return new DemoEnvironment(jdbiSettings);
  }

  /**
   * Another store on the same database with a connection pool of its own, as another instance of the
   * application would open it. The caller closes it.
   */
  public JdbiIdempotencyStore openStore() {
    return openStore(settings);
  }

  /** Like {@link #openStore()}, with a pool of at most {@code poolSize} connections. */
  public JdbiIdempotencyStore openStore(int poolSize) {
    Map<String, String> s = new HashMap<>(settings);
    s.put("pool-size", Integer.toString(poolSize));
    return openStore(s);
  }

  private static JdbiIdempotencyStore openStore(Map<String, String> settings) {
    return (JdbiIdempotencyStore) new JdbiStoreProvider().create(new StoreSettings("jdbi", settings));
  }

  /** The engine the woven methods use. */
  public Idempotency idempotency() {
    return idempotency;
  }

  /** The shop's database (idempotency records and the shop's own tables). */
  public Jdbi jdbi() {
    return store.jdbi();
  }

  /** Counts of the library's events, from every engine the demo opens. */
  public OutcomeTally tally() {
    return tally;
  }

  /** Deletes the demo's idempotency records and the shop's rows. Returns how many records there were. */
  public int forgetEarlierRuns() {
    int records = jdbi().withHandle(h -> h.execute("DELETE FROM " + store.table()));
    ShopSchema.clear(jdbi());
    return records;
  }

  /** Idempotency records still live (within their TTL or lease) by the database's clock. */
  public int liveRecords() {
    return jdbi().withHandle(h -> h.createQuery(
            "SELECT COUNT(*) FROM " + store.table() + " WHERE expires_at > CURRENT_TIMESTAMP")
        .mapTo(Integer.class).one());
  }

  /** Where the records live, for people: the H2 file, or the JDBC URL without its parameters. */
  public String location() {
    String url = settings.get("url");
    String where;
    if (url == null || url.isBlank()) {
      where = "H2 file " + JdbiStoreProvider.defaultH2Path() + ".mv.db";
    } else if (url.startsWith("jdbc:h2:file:")) {
      where = "H2 file " + url.substring("jdbc:h2:file:".length()).split(";", 2)[0] + ".mv.db";
    } else {
      where = url.split("[?;]", 2)[0];
    }
    return where + ", table " + store.table();
  }

  @Override
  public void close() {
    Idempotency.uninstall();
    store.close();
  }
}
