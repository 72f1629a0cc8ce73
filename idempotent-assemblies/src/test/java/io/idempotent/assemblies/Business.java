package io.idempotent.assemblies;

import io.idempotent.Effects;

/**
 * The body of every idempotent method the fixtures declare. Its effect lives where its declaration says: a
 * ledger row written on the caller's connection (in the caller's transaction, or committed at once without
 * one) unless it is declared {@code EXTERNAL}, then an external effect. When it fails it fails as a sound
 * method does: after writes that its transaction's rollback takes back, before anything that nothing undoes.
 */
final class Business {

  private Business() {}

  static Payment pay(String key, Effects declared) {
    CellRun run = CellRun.current();
    Instance here = Instance.current();
    int execution = run.entered(key);
    pause(run);
    boolean inTheDatabase = declared != Effects.EXTERNAL;
    if (run.methodFailsNow(key)) {
      if (inTheDatabase && here.inTransaction()) {
        here.ledger(key, "written before the failure");
      }
      throw new BusinessFailure(key);
    }
    Payment payment = new Payment(key, execution);
    if (inTheDatabase) {
      here.ledger(key, payment.toString());
    } else {
      run.externalEffect(key);
    }
    return payment;
  }

  private static void pause(CellRun run) {
    try {
      run.meetTheDuplicates();
      long millis = run.methodPause().toMillis();
      if (millis > 0) {
        Thread.sleep(millis); // a slow method: it outlasts the server's idle-in-transaction timeout
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
