package io.idempotent.woven;

import io.idempotent.Idempotent;

/** Annotated methods with leases and TTLs out of bounds, for {@link io.idempotent.runtime.Idempotency#validate}. */
public class BadDurationsService {

  @Idempotent(key = "#id", lease = "PT0.005S")
  public String tinyLease(String id) {
    return id;
  }

  @Idempotent(key = "#id", lease = "P36500D")
  public String centuryLease(String id) {
    return id;
  }

  @Idempotent(key = "#id", ttl = "P109500D")
  public String threeCenturyTtl(String id) {
    return id;
  }
}
