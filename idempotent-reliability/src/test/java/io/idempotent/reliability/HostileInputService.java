package io.idempotent.reliability;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Woven methods whose results echo their inputs, so that a key confused with another would show as a
 * wrong result. The run id is the scope, so that the keys themselves can be exactly the hostile values.
 * Thread-safe.
 */
public class HostileInputService {

  final AtomicInteger runs = new AtomicInteger();

  @Idempotent(key = "#key", scope = "#run", name = "hostile.echo")
  public String echo(String run, String key, int index) {
    runs.incrementAndGet();
    return index + "|" + key;
  }

  @Idempotent(key = "#first + #second", scope = "#run", name = "hostile.concat")
  public String concat(String run, String first, String second) {
    runs.incrementAndGet();
    return first + "/" + second;
  }

  /** Tenants: the same order id in two scopes is two different calls. */
  @Idempotent(key = "#orderId", scope = "#tenant", name = "hostile.tenant-order")
  public String placeOrder(String tenant, String orderId) {
    runs.incrementAndGet();
    return tenant + "#" + orderId;
  }
}
