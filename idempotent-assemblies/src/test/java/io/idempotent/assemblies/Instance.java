package io.idempotent.assemblies;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotent.jdbi.JdbiIdempotencyStore;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spring.IdempotencyAutoConfiguration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One application instance: its pool (with the group's server setting), a Spring context with the Spring Boot
 * starter's auto-configuration (which builds the table store on the pool, watching Spring-managed transactions)
 * and the fixtures' beans, and a second table store on the application's {@code Jdbi}, which watches JDBI
 * transactions. Both stores use the group's table.
 */
final class Instance implements AutoCloseable {

  private static final ThreadLocal<Instance> CURRENT = new ThreadLocal<>();
  /** The handle of the JDBI transaction the calling thread runs in, if any. */
  private static final ThreadLocal<Handle> JDBI_HANDLE = new ThreadLocal<>();

  final HikariDataSource pool;
  final Jdbi jdbi;
  final AnnotationConfigApplicationContext spring;
  /** The store as the Spring Boot starter builds it (bean of its auto-configuration). */
  final JdbiIdempotencyStore starterStore;
  /** The store on the application's {@code Jdbi}, which sees that Jdbi's transactions. */
  final JdbiIdempotencyStore jdbiStore;
  final SettlementJob job;
  private final TransactionTemplate transaction;
  private final TransactionTemplate requiresNew;
  private final JdbcTemplate jdbc;
  private final String ledgerInsert;

  private Instance(HikariDataSource pool, Deployment deployment) {
    this.pool = pool;
    this.jdbi = Jdbi.create(pool);
    this.spring = springContext(pool, deployment);
    this.starterStore = spring.getBean(JdbiIdempotencyStore.class);
    this.jdbiStore = JdbiIdempotencyStore.builder(jdbi).table(deployment.table)
        .transactionMode(deployment.group.mode().transactionMode).build();
    PlatformTransactionManager manager = spring.getBean(PlatformTransactionManager.class);
    this.transaction = new TransactionTemplate(manager);
    this.requiresNew = new TransactionTemplate(manager);
    requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    this.jdbc = new JdbcTemplate(pool);
    this.ledgerInsert = "INSERT INTO " + deployment.ledger + " (k, payment) VALUES (?, ?)";
    this.job = new SettlementJob(new CellClock());
    // the context installed the starter's configuration for the woven aspect: the suite's goes back in
    CellStore.install();
  }

  static Instance open(Deployment deployment, int number) {
    HikariConfig hc = new HikariConfig();
    deployment.group.database().connect(hc, deployment.h2Name);
    hc.setPoolName("assemblies-" + deployment.table + "-" + number);
    hc.setMinimumIdle(1);
    // no longer than the store's operation timeout, as the store advises when it is built
    hc.setConnectionTimeout(5_000);
    deployment.group.setting().configure(hc, deployment.group.database());
    HikariDataSource pool = new HikariDataSource(hc);
    try {
      return new Instance(pool, deployment);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  /** The starter's auto-configuration with the group's mode and table, as {@code application.properties} set them. */
  private static AnnotationConfigApplicationContext springContext(DataSource pool, Deployment deployment) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("application", Map.of(
        "idempotent.jdbi.mode", deployment.group.mode().property(),
        "idempotent.jdbi.table", deployment.table,
        "idempotent.jdbi.create-schema", "true")));
    context.registerBean("dataSource", DataSource.class, () -> pool);
    context.register(ShopConfiguration.class, IdempotencyAutoConfiguration.class);
    context.refresh();
    return context;
  }

  /** The instance an attempt on the calling thread runs in. */
  static Instance current() {
    Instance i = CURRENT.get();
    if (i == null) {
      throw new IllegalStateException("no instance on this thread");
    }
    return i;
  }

  /** Runs {@code body} as this instance, with the store that sees transactions of the cell's {@code context}. */
  <T> T attempt(CallerContext context, Supplier<T> body) {
    Instance before = CURRENT.get();
    CURRENT.set(this);
    try {
      return CellStore.on(storeFor(context), body);
    } finally {
      CURRENT.set(before);
    }
  }

  /** The store that sees the caller's transactions: for a JDBI transaction the one on the Jdbi, else the starter's. */
  IdempotencyStore storeFor(CallerContext context) {
    return context.transaction == CallerContext.Transaction.JDBI ? jdbiStore : starterStore;
  }

  /**
   * Makes {@code call} in {@code context}, as the caller's code does it; when the run has the caller fail after
   * the call returned, it throws {@link CallerFailure} there and whatever transaction it has open rolls back
   * (for {@link CallerContext#REQUIRES_NEW}, the outer one, after the inner one committed).
   */
  Answer.Returned within(CallerContext context, Supplier<Answer.Returned> call) {
    return switch (context) {
      case NONE -> CallerFailure.orFailNow(call.get());
      case SPRING_TRANSACTION, NESTED -> transaction.execute(status -> CallerFailure.orFailNow(call.get()));
      case JDBI_TRANSACTION -> inJdbiTransaction(() -> CallerFailure.orFailNow(call.get()));
      case REQUIRES_NEW -> transaction.execute(outer ->
          CallerFailure.orFailNow(requiresNew.execute(inner -> call.get())));
    };
  }

  /**
   * Runs {@code body} in {@code jdbi.inTransaction}, its handle the one the ledger writes on. On a pool whose
   * connections come with auto-commit off, JDBI takes a new handle as already in a transaction its owner
   * manages, and {@code inTransaction} would neither begin nor commit it: there the application begins and
   * commits (or rolls back) itself.
   */
  <T> T inJdbiTransaction(Supplier<T> body) {
    return jdbi.withHandle(handle -> {
      if (!handle.isInTransaction()) {
        return handle.inTransaction(h -> bound(h, body));
      }
      handle.begin();
      try {
        T result = bound(handle, body);
        handle.commit();
        return result;
      } catch (RuntimeException e) {
        handle.rollback();
        throw e;
      }
    });
  }

  private static <T> T bound(Handle handle, Supplier<T> body) {
    JDBI_HANDLE.set(handle);
    try {
      return body.get();
    } finally {
      JDBI_HANDLE.remove();
    }
  }

  /** Whether the calling thread writes in a transaction: a Spring-managed one, or a JDBI one. */
  boolean inTransaction() {
    return JDBI_HANDLE.get() != null || TransactionSynchronizationManager.isActualTransactionActive();
  }

  /** Writes a ledger row as the application's code does: in the caller's transaction, or committed at once. */
  void ledger(String key, String payment) {
    Handle handle = JDBI_HANDLE.get();
    if (handle != null) {
      handle.execute(ledgerInsert, key, payment);
    } else if (TransactionSynchronizationManager.isActualTransactionActive()) {
      jdbc.update(ledgerInsert, key, payment);
    } else {
      try (Connection c = pool.getConnection(); PreparedStatement p = c.prepareStatement(ledgerInsert)) {
        p.setString(1, key);
        p.setString(2, payment);
        p.executeUpdate();
        if (!c.getAutoCommit()) {
          c.commit(); // a pool that hands out connections with auto-commit off
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  @Override
  public void close() {
    try {
      jdbiStore.close();
      spring.close(); // closes the starter's store
    } finally {
      pool.close();
    }
  }
}
