package com.example.docs.layers;

import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import java.time.Clock;
import java.time.LocalDate;
import org.springframework.scheduling.annotation.Scheduled;

/** docs/LAYERS.md, scheduled jobs: once per day whichever instance's trigger fires. */
public class Settlement {

  public interface Settlements {
    void settle(LocalDate day);
  }

  private final Clock clock;
  private final Settlements settlements;

  public Settlement(Clock clock, Settlements settlements) {
    this.clock = clock;
    this.settlements = settlements;
  }

  // README snippet: layers-scheduled
}
