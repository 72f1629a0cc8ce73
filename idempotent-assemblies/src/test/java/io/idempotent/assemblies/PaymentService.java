package io.idempotent.assemblies;

import io.idempotent.Effects;
import io.idempotent.runtime.Idempotency;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Spring service as applications write them: public methods with their transaction demarcation, reaching
 * the woven {@code @Idempotent} methods it inherits by self-invocation (no proxy sees those calls). Each
 * method is one caller context; each fails after the call returned when the run says so.
 */
public class PaymentService extends Payments {

  private final RequiresNewPayments requiresNew;

  public PaymentService(RequiresNewPayments requiresNew) {
    this.requiresNew = requiresNew;
  }

  public Answer.Returned payWithoutTransaction(Effects effects, String key) {
    return CallerFailure.orFailNow(returned(pay(effects, false, key)));
  }

  @Transactional
  public Answer.Returned payInTransaction(Effects effects, boolean nested, String key) {
    return CallerFailure.orFailNow(returned(pay(effects, nested, key)));
  }

  /** The payment in a transaction of its own ({@code REQUIRES_NEW}), inside this one, which then may fail. */
  @Transactional
  public Answer.Returned payAroundANewTransaction(Effects effects, String key) {
    return CallerFailure.orFailNow(requiresNew.pay(effects, key));
  }

  /** The payment in a JDBI transaction on the store's {@code Jdbi}, whose handle the ledger writes on. */
  public Answer.Returned payInJdbiTransaction(Effects effects, String key) {
    return Instance.current().inJdbiTransaction(() -> CallerFailure.orFailNow(returned(pay(effects, false, key))));
  }

  static Answer.Returned returned(Payment payment) {
    return new Answer.Returned(payment, Idempotency.lastOutcome());
  }
}
