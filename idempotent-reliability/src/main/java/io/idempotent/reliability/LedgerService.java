package io.idempotent.reliability;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;

/**
 * The protected method of the reliability tests: appends one ledger row per execution and returns who
 * executed it. Woven at compile time like any application's code. Thread-safe.
 *
 * <p>The ledger row is written through {@code jdbi.useHandle}, which joins the transaction the calling
 * thread has open on the same {@code Jdbi} (joined mode), or commits at once when there is none.
 */
public final class LedgerService {

  /** The namespace of the protected method's keys. */
  public static final String NAME = "reliability.ledger";

  /** Runs after the ledger row is written and before the method returns; tests stop or fault there. */
  @FunctionalInterface
  public interface AfterWrite {
    AfterWrite NOTHING = key -> {};

    void reached(String key) throws InterruptedException;
  }

  private final Jdbi jdbi;
  private final Ledger ledger;
  private final String run;
  private final String executor;
  private final AfterWrite afterWrite;
  private final AtomicLong executions = new AtomicLong();

  public LedgerService(Jdbi jdbi, Ledger ledger, String run, String executor, AfterWrite afterWrite) {
    this.jdbi = jdbi;
    this.ledger = ledger;
    this.run = run;
    this.executor = executor;
    this.afterWrite = afterWrite;
  }

  /** Appends {@code key} to the ledger; returns "executor/thread" of the call that ran. */
  @Idempotent(key = "#key", name = NAME)
  public String record(String key) throws InterruptedException {
    executions.incrementAndGet();
    String by = executor + "/" + Thread.currentThread().getName();
    jdbi.useHandle(h -> ledger.append(h, run, key, by));
    afterWrite.reached(key);
    return by;
  }

  /** How many times the method body ran in this process. */
  public long executions() {
    return executions.get();
  }
}
