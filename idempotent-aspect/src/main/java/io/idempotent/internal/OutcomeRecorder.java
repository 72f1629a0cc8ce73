package io.idempotent.internal;

import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyResultException;
import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.CallClaim;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Optional;

/**
 * Records the outcome of a call that ran — its value, or a final failure — or releases its claim, and
 * hands an outcome the store failed to take to the lease renewer, which records it later (docs/DESIGN.md,
 * "Outcomes recorded late"). Reports a claim the store no longer holds.
 */
final class OutcomeRecorder {
  private static final System.Logger LOG = System.getLogger("io.idempotent");


  private final EngineSettings settings;
  private final CallEvents events;
  private final LeaseRenewer renewer;

  OutcomeRecorder(EngineSettings settings, CallEvents events, LeaseRenewer renewer) {
    this.settings = settings;
    this.events = events;
    this.renewer = renewer;
  }

  Duration ttl(CallPlan plan) {
    return plan.ttl != null ? plan.ttl : settings.defaultTtl();
  }

  Duration maxRunTime(CallPlan plan) {
    return plan.maxRunTime != null ? plan.maxRunTime : ttl(plan);
  }

  /**
   * Records a call's result. When the store fails, the caller still gets its result, and the outcome is
   * handed to the renewer, which keeps trying to record it while the claim may still be this owner's.
   *
   * @param renewal the call's lease renewal, already cancelled (null when leases are not renewed)
   */
  void complete(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
      LeaseRenewer.Renewal renewal, Object result, boolean detached) {
    boolean completed;
    StoredOutcome outcome;
    try {
      outcome = recorded(plan, result);
    } catch (IdempotencyResultException e) {
      // the result cannot be stored: release so that nothing half-written stays behind, and say why
      release(plan, store, key, claim, e);
      throw e;
    }
    try {
      completed = detached ? claim.completeDetached(outcome, ttl(plan)) : claim.complete(outcome, ttl(plan));
    } catch (IdempotencyResultException e) {
      // the result cannot be stored: release so that nothing half-written stays behind, and say why
      release(plan, store, key, claim, e);
      throw e;
    } catch (IdempotencyRollbackRequiredException e) {
      // a store writing inside the caller's transaction could not record the outcome there: the caller
      // must see it, so that its transaction (holding the method's writes) rolls back
      events.emit(Type.STORE_ERROR, plan, key, e);
      throw e;
    } catch (RuntimeException e) {
      storeFailedAfterRun(plan, key, e);
      recordLater(plan, store, key, claim, lease, renewal, outcome, false);
      return;
    }
    if (completed) {
      events.emit(Type.EXECUTED, plan, key, null);
    } else {
      leaseLost(events, plan, store, key, "complete");
    }
  }

  /**
   * Hands an outcome the store failed to record to the renewer, which tries again on the store's lane
   * (as a detached completion: the lane has no transaction of the caller's) until it lands or the claim
   * is lost. (A repeat after an attempt that committed but whose answer was lost finds no claim either,
   * and is reported as a lost claim although the outcome is recorded.)
   */
  private void recordLater(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
      LeaseRenewer.Renewal renewal, StoredOutcome outcome, boolean failure) {
    Duration ttl = ttl(plan);
    renewer.recordLater(plan, store, key, claim, lease, maxRunTime(plan), renewal, new LeaseRenewer.LateRecording() {
      @Override
      public boolean attempt() {
        return claim.completeDetached(outcome, ttl);
      }

      @Override
      public boolean failure() {
        return failure;
      }
    });
  }

  /**
   * What a store keeps of a result. A value of a type that cannot change is kept as the object itself,
   * encoded only if the store asks. Any other value is encoded now, before the caller gets it back, and
   * kept only as that encoding: a caller that changes the object it got can then never change what a
   * replay returns, on any store, since every replay decodes a copy of its own.
   *
   * @throws io.idempotent.IdempotencyResultException if the value cannot be encoded
   */
  StoredOutcome recorded(CallPlan plan, Object result) {
    if (result == null) {
      return StoredOutcome.nullValue();
    }
    if (plan.immutableResult) {
      return StoredOutcome.value(result, () -> settings.codec().encode(result, plan.resultType));
    }
    return StoredOutcome.valueJson(settings.codec().encode(result, plan.resultType));
  }

  /** The method ran; its result goes back to the caller while its outcome is tried again in the background. */
  private void storeFailedAfterRun(CallPlan plan, String key, RuntimeException e) {
    events.emit(Type.STORE_ERROR, plan, key, e);
    LOG.log(Level.WARNING, "Could not record the outcome of " + plan.description + " (key#"
        + Hashing.shortReference(key) + "); trying again in the background while the claim is held. If the"
        + " store stays unreachable until the lease has run out, a retry after that may run it again", e);
  }

  void onFailure(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Duration lease,
      LeaseRenewer.Renewal renewal, Throwable t) {
    if (plan.isFinal(t)) {
      StoredOutcome outcome = finalFailure(plan, key, t);
      if (outcome == null) {
        release(plan, store, key, claim, t);
        return;
      }
      boolean completed;
      try {
        completed = claim.complete(outcome, ttl(plan));
      } catch (RuntimeException e) {
        storeFailedAfterRun(plan, key, e);
        recordLater(plan, store, key, claim, lease, renewal, outcome, true);
        return;
      }
      if (completed) {
        events.emit(Type.FAILURE_STORED, plan, key, t);
      } else {
        leaseLost(events, plan, store, key, "store its final failure");
      }
    } else {
      release(plan, store, key, claim, t);
    }
  }

  /**
   * The outcome that records {@code t}, a final exception of the call; null when a replay could not recreate
   * it as it was, which is never recorded: the key is to be released, and a retry runs the method again.
   */
  StoredOutcome finalFailure(CallPlan plan, String key, Throwable t) {
    try {
      return StoredOutcome.failure(t.getClass().getName(), t.getMessage(), FailureReplay.record(t));
    } catch (FailureReplay.NotRecreatable | RuntimeException e) {
      LOG.log(Level.WARNING, "The final exception " + t.getClass().getName() + " of " + plan.description
          + " (key#" + Hashing.shortReference(key) + ") was not recorded, because a replay could not recreate it ("
          + e.getMessage() + "); the key was released and a retry runs the method again");
      return null;
    }
  }

  private void release(CallPlan plan, IdempotencyStore store, String key, CallClaim claim, Throwable cause) {
    boolean released;
    try {
      released = claim.release();
    } catch (RuntimeException e) {
      events.emit(Type.STORE_ERROR, plan, key, e);
      LOG.log(Level.WARNING, "Could not release the claim of " + plan.description
          + "; the key stays in progress until its lease expires", e);
      return;
    }
    if (released) {
      events.emit(Type.RELEASED_ON_FAILURE, plan, key, cause);
    } else {
      leaseLost(events, plan, store, key, "release");
    }
  }

  /** How the lease renewer's reports become events and log lines. */
  static LeaseRenewer.Listener renewalReports(CallEvents events) {
    return new LeaseRenewer.Listener() {
      @Override
      public void renewalFailed(CallPlan plan, String key, RuntimeException error) {
        events.emit(Type.STORE_ERROR, plan, key, error);
      }

      @Override
      public void leaseLost(CallPlan plan, IdempotencyStore store, String key, String action) {
        OutcomeRecorder.leaseLost(events, plan, store, key, action);
      }

      @Override
      public void runTimeExceeded(CallPlan plan, String key, Duration maxRunTime) {
        OutcomeRecorder.runTimeExceeded(events, plan, key, maxRunTime);
      }

      @Override
      public void recordedLate(CallPlan plan, String key, LeaseRenewer.LateRecording recording) {
        events.emit(recording.failure() ? Type.FAILURE_STORED : Type.EXECUTED, plan, key, null);
        LOG.log(Level.INFO, "Recorded the outcome of " + plan.description + " (key#" + Hashing.shortReference(key)
            + ") once the store answered again");
      }

      @Override
      public void recordingAbandoned(CallPlan plan, String key, Duration maxRunTime) {
        events.emit(Type.RUN_TIME_EXCEEDED, plan, key, null);
        LOG.log(Level.WARNING, "Gave up recording the outcome of " + plan.description + " (key#"
            + Hashing.shortReference(key) + "): the store did not take it within the call's maximum run time of "
            + maxRunTime + "; once its lease runs out a retry runs the method again");
      }
    };
  }

  private static void runTimeExceeded(CallEvents events, CallPlan plan, String key, Duration maxRunTime) {
    events.emit(Type.RUN_TIME_EXCEEDED, plan, key, null);
    LOG.log(Level.WARNING, "A call of " + plan.description + " (key#" + Hashing.shortReference(key) + ") has run"
        + " longer than its maximum run time of " + maxRunTime + ": its lease is no longer renewed, and once it"
        + " runs out another caller may take the key over");
  }

  /**
   * Reports a claim the store no longer holds, saying what the store shows now: another owner's claim or
   * outcome (the lease ran out and another caller took over), or no record at all (it expired, was
   * evicted, or the store lost it in a restart or failover).
   */
  private static void leaseLost(CallEvents events, CallPlan plan, IdempotencyStore store, String key,
      String action) {
    events.emit(Type.LEASE_LOST, plan, key, null);
    String now;
    try {
      Optional<IdempotencyRecord> found = store.find(key);
      now = found.isEmpty()
          ? "its record is gone from the store (expired and purged, evicted, or lost in a restart or failover of"
              + " the store), so a retry runs the method again"
          : found.get().state() == RecordState.COMPLETED
              ? "another caller, which took it over once its lease ran out, has recorded its own outcome, which"
                  + " was left untouched"
              : "its lease ran out and another caller took it over; the new owner's claim was left untouched";
    } catch (RuntimeException e) {
      now = "its lease ran out and another caller may have taken over, or its record is gone (the store could"
          + " not be asked which)";
    }
    LOG.log(Level.WARNING, "Lost the claim of " + plan.description + " (key#" + Hashing.shortReference(key)
        + ") before it could " + action + ": " + now);
  }
}
