package io.idempotent.jdbi;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Handle;

/** The service of README.md's joined-mode example, woven after javac compiled it (see the module's pom). */
public class Orders {

  static final String TABLE = "readme_orders";

  final AtomicInteger runs = new AtomicInteger();

  /** Writes the order on the caller's handle; the handle is how the call runs, not what it is about. */
  @Idempotent(key = "#orderId")
  public String create(Handle h, String orderId) {
    runs.incrementAndGet();
    h.execute("INSERT INTO " + TABLE + " (id) VALUES (?)", orderId);
    return "created " + orderId;
  }
}
