package com.example.shop;

import io.idempotent.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import lombok.extern.slf4j.Slf4j;

/** An idempotent method of the test sources: the weaving of target/test-classes protects it. */
@Slf4j
class TestOnlyJob {

  private final AtomicInteger runs = new AtomicInteger();

  @Idempotent(key = "'job:' + #key")
  public void run(String key) {
    runs.incrementAndGet();
    log.info("job {} ran", key);
  }

  int runs() {
    return runs.get();
  }
}
