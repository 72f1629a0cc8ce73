package io.idempotent.reliability;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.jdbi.TransactionMode;
import io.idempotent.layered.LayeredIdempotencyStore;
import io.idempotent.redis.RedisIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testservers.TestServers;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;

/**
 * Every store, for tests that must hold on each: in memory, the table store on each database, the
 * layered store (Caffeine in front of PostgreSQL) and Redis (database 15, a key prefix per opened store).
 */
enum StoreKind {
  CAFFEINE(null),
  JDBI_H2(Database.H2),
  JDBI_POSTGRES(Database.POSTGRES),
  JDBI_MARIADB(Database.MARIADB),
  LAYERED_POSTGRES(Database.POSTGRES),
  REDIS(null);

  private static final Set<Database> SCHEMA = ConcurrentHashMap.newKeySet();

  /** The database behind the store, or null for the in-memory store. */
  final Database database;

  StoreKind(Database database) {
    this.database = database;
  }

  static Stream<StoreKind> all() {
    return Stream.of(values());
  }

  /** Kinds that persist records in a table (whose rows a test can tamper with). */
  static Stream<StoreKind> tables() {
    return Stream.of(JDBI_H2, JDBI_POSTGRES, JDBI_MARIADB, LAYERED_POSTGRES);
  }

  /** A new store instance (and pool) of this kind; skips or fails the test when its server is missing. */
  Opened open(TransactionMode mode) {
    if (this == REDIS) {
      RedisIdempotencyStore redis = redisStore();
      return new Opened(this, redis, null, null, redis::close);
    }
    if (database == null) {
      return new Opened(this, new CaffeineIdempotencyStore(), null, null, () -> {});
    }
    database.requireReachable();
    HikariDataSource pool = database.newPool(6, name().toLowerCase(java.util.Locale.ROOT));
    Jdbi jdbi = Jdbi.create(pool);
    return new Opened(this, storeOn(jdbi, mode), jdbi, pool, pool::close);
  }

  /**
   * A new store of this kind on {@code jdbi} (a table store, or a layered one with an empty cache),
   * as another application instance would have; creates the table on first use.
   */
  IdempotencyStore storeOn(Jdbi jdbi, TransactionMode mode) {
    JdbiIdempotencyStore table = JdbiIdempotencyStore.builder(jdbi)
        .table(Database.TABLE)
        .transactionMode(mode)
        .createSchema(SCHEMA.add(database))
        .build();
    return this == LAYERED_POSTGRES ? new LayeredIdempotencyStore(new CaffeineIdempotencyStore(), table) : table;
  }

  Opened open() {
    return open(TransactionMode.INDEPENDENT);
  }

  private static RedisIdempotencyStore redisStore() {
    TestServers.RedisServer redis = TestServers.REDIS;
    redis.requireReachable();
    return RedisIdempotencyStore.builder().host(redis.host).port(redis.port).database(TestServers.RedisServer.DATABASE)
        .prefix("reliability:" + java.util.UUID.randomUUID() + ":").build();
  }

  /** An open store and what it runs on; closing it closes what was opened for it (pool, connections). */
  record Opened(StoreKind kind, IdempotencyStore store, Jdbi jdbi, HikariDataSource pool, Runnable closer)
      implements AutoCloseable {
    @Override
    public void close() {
      closer.run();
    }
  }
}
