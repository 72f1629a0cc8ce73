package io.idempotent.woven;

import io.idempotent.Idempotent;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;

/** A woven service whose arguments are plain objects, infrastructure or no values at all. */
public class ArgumentService {

  final AtomicInteger runs = new AtomicInteger();

  @Idempotent(key = "#key")
  public String charge(String key, Amount amount) {
    runs.incrementAndGet();
    return key + ":" + amount;
  }

  @Idempotent(key = "#key")
  public String ship(String key, Parcel parcel) {
    runs.incrementAndGet();
    return "shipped " + parcel.getLabel();
  }

  @Idempotent(key = "#key")
  public String handOver(String key, Object value) {
    runs.incrementAndGet();
    return "handed over";
  }

  @Idempotent(key = "#key")
  public String record(String key, Reading reading) {
    runs.incrementAndGet();
    return "recorded " + reading.getSensor();
  }

  /** The joined-transaction shape: the connection is infrastructure, left out of the fingerprint. */
  @Idempotent(key = "#orderId")
  public String create(Connection connection, String orderId) {
    runs.incrementAndGet();
    return "created " + orderId;
  }

  /** A parameter with no value identity is fine when the payload leaves it out. */
  @Idempotent(key = "#key", payload = "#key")
  public String startWith(String key, Thread worker) {
    runs.incrementAndGet();
    return "started " + key;
  }

  /** The key's declared type may hold anything: its text is checked on the value itself. */
  @Idempotent(key = "#ref", payload = "#key")
  public String byReference(String key, Object ref) {
    runs.incrementAndGet();
    return "by " + ref;
  }

  @Idempotent(key = "#key")
  public String lookup(String key) {
    runs.incrementAndGet();
    return "value of " + key;
  }

  @Idempotent(key = "#key")
  public Integer lookup(String key, int version) {
    runs.incrementAndGet();
    return version;
  }
}
