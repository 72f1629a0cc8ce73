package io.idempotent.assemblies;

import io.idempotent.Effects;
import io.idempotent.Idempotent;
import org.springframework.context.event.EventListener;

/** Pays once per event id, however often the event is published: the listener methods are idempotent on it. */
public class PaymentListener {

  private final Payments payments = new Payments();

  @EventListener
  @Idempotent(key = "#event.id")
  public void on(PaymentRequested.Undeclared event) {
    handle(event, Effects.UNDECLARED);
  }

  @EventListener
  @Idempotent(key = "#event.id", effects = Effects.TRANSACTIONAL)
  public void on(PaymentRequested.Transactional event) {
    handle(event, Effects.TRANSACTIONAL);
  }

  @EventListener
  @Idempotent(key = "#event.id", effects = Effects.EXTERNAL)
  public void on(PaymentRequested.External event) {
    handle(event, Effects.EXTERNAL);
  }

  private void handle(PaymentRequested event, Effects effects) {
    if (event.nested()) {
      payments.pay(effects, false, CellRun.innerKey(event.id()));
    }
    Business.pay(event.id(), effects);
  }
}
