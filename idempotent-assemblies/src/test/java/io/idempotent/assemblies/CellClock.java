package io.idempotent.assemblies;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** The clock the scheduled job reads its period from: each cell's own instant, on every instance. */
final class CellClock extends Clock {

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the job reads instants only");
  }

  @Override
  public Instant instant() {
    return CellRun.current().now;
  }
}
