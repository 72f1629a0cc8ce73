package io.idempotent.assemblies;

import io.idempotent.Effects;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** Pays in a transaction of its own, whatever transaction its caller has open. */
public class RequiresNewPayments extends Payments {

  @Transactional(propagation = Propagation.REQUIRES_NEW)
  public Answer.Returned pay(Effects effects, String key) {
    return PaymentService.returned(pay(effects, false, key));
  }
}
