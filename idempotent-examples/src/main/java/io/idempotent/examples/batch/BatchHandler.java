package io.idempotent.examples.batch;

import io.idempotent.Settlement;
import java.util.List;

/** What a batch consumer does with a batch of deliveries. */
@FunctionalInterface
public interface BatchHandler {

  /**
   * Handles {@code batch} and returns once its work is committed.
   *
   * @return how to settle each delivery, in order
   * @throws Exception when nothing of the batch was committed: the consumer requeues every delivery of it
   */
  List<Settlement> handle(List<IncomingOrder> batch) throws Exception;
}
