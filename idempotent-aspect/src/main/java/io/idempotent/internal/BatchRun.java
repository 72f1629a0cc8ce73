package io.idempotent.internal;

import io.idempotent.CallOutcome;
import io.idempotent.IdempotencyEvent.Type;
import io.idempotent.IdempotencyInProgressException;
import io.idempotent.IdempotencyKeyException;
import io.idempotent.IdempotencyKeyReusedException;
import io.idempotent.IdempotencyResultException;
import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.internal.text.Hashing;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import io.idempotent.spi.IdempotencyStore;
import io.idempotent.spi.KeyLimits;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoredOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch of items handled as one call (docs/MESSAGING.md, Batches): every distinct key is claimed at once,
 * each claimed item runs, and every outcome is recorded at once, through {@link BatchClaims} where the store
 * offers it (one round trip each) and key by key otherwise. What an item's outcome means is the engine's
 * (replay, fingerprint check, final exceptions); an item whose key is in progress elsewhere is answered as
 * such, never waited for, since the batch holds the keys it claimed. Not thread-safe; one per batch.
 */
public final class BatchRun {

  /** How one item of a batch ended: its value or failure, and its outcome (null when it was refused). */
  public record Item(Object value, Throwable failure, CallOutcome outcome) {}

  /** Runs the batch's item at {@code index}. */
  @FunctionalInterface
  public interface Body {
    Object run(int index) throws Throwable;
  }

  /** What a replay of a recorded outcome returns, or throws (the engine's replay of a call). */
  @FunctionalInterface
  interface Replays {
    Object replayed(CallPlan plan, StoredOutcome outcome) throws Throwable;
  }

  private final CallEvents events;
  private final OutcomeRecorder recorder;
  private final Replays replays;
  private final CallPlan plan;
  private final IdempotencyStore store;
  private final String owner;
  private final Duration lease;

  BatchRun(EngineSettings settings, CallEvents events, OutcomeRecorder recorder, Replays replays, CallPlan plan,
      String owner) {
    this.events = events;
    this.recorder = recorder;
    this.replays = replays;
    this.plan = plan;
    this.store = settings.store(plan.storeName);
    this.owner = owner;
    this.lease = plan.lease != null ? plan.lease : settings.defaultLease();
  }

  /**
   * Runs the batch: {@code keys.get(i)} and {@code payloads.get(i)} belong to item {@code i}. A later item
   * with the key of an earlier one is that item's duplicate: it is answered from the earlier one's outcome.
   *
   * @throws IdempotencyStoreException when the store could not claim the keys (nothing ran), or could not
   *     record the outcomes of the items that ran (their keys stay in progress until their leases run out)
   */
  List<Item> run(List<String> keys, List<Object[]> payloads, Body body) {
    int n = keys.size();
    Item[] endings = new Item[n];
    String[] storedKeys = new String[n];
    String[] fingerprints = new String[n];
    int[] firstOf = new int[n];
    Map<String, Integer> first = new HashMap<>();
    List<BatchClaims.Claim> claims = new ArrayList<>();
    List<Integer> claimedItems = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String key = keys.get(i);
      if (key == null || key.isBlank()) {
        endings[i] = new Item(null, new IdempotencyKeyException("The key of item " + i + " of the batch "
            + plan.description + " is " + (key == null ? "null" : "blank") + "; it did not run", null, plan.name,
            null), null);
        firstOf[i] = -1;
        continue;
      }
      storedKeys[i] = StoredKeys.compose(plan.name, null, key, KeyLimits.rulesOf(store));
      fingerprints[i] = plan.checkPayload ? Fingerprints.of(payloads.get(i)) : "";
      Integer earlier = first.putIfAbsent(storedKeys[i], i);
      firstOf[i] = earlier != null ? earlier : i;
      if (earlier == null) {
        claims.add(new BatchClaims.Claim(storedKeys[i], fingerprints[i]));
        claimedItems.add(i);
      }
    }
    // claimed in key order: two batches with keys in common take their locks in the same order, so neither
    // waits for the other in a cycle; the items still run in the batch's order
    Integer[] byKey = new Integer[claims.size()];
    for (int c = 0; c < byKey.length; c++) {
      byKey[c] = c;
    }
    java.util.Arrays.sort(byKey, java.util.Comparator.comparing(c -> claims.get(c).key()));
    List<BatchClaims.Claim> sorted = new ArrayList<>(claims.size());
    for (Integer c : byKey) {
      sorted.add(claims.get(c));
    }
    List<ClaimResult> inKeyOrder = claimAll(sorted);
    ClaimResult[] answers = new ClaimResult[claims.size()];
    for (int c = 0; c < byKey.length; c++) {
      answers[byKey[c]] = inKeyOrder.get(c);
    }
    List<ClaimResult> results = List.of(answers);
    List<BatchClaims.Completion> completions = new ArrayList<>();
    List<Integer> completedItems = new ArrayList<>();
    for (int c = 0; c < claims.size(); c++) {
      int i = claimedItems.get(c);
      ClaimResult claim = results.get(c);
      if (claim.claimed()) {
        endings[i] = runItem(i, storedKeys[i], body, completions, completedItems);
      } else {
        endings[i] = answerFrom(claim.existing(), fingerprints[i], storedKeys[i]);
      }
    }
    completeAll(completions, completedItems, storedKeys);
    for (int i = 0; i < n; i++) {
      if (firstOf[i] >= 0 && firstOf[i] != i) {
        endings[i] = duplicateOf(endings[firstOf[i]], fingerprints[i], storedKeys[i], fingerprints[firstOf[i]]);
      }
    }
    return List.of(endings);
  }

  private List<ClaimResult> claimAll(List<BatchClaims.Claim> claims) {
    try {
      if (store instanceof BatchClaims batch) {
        return batch.claimAll(claims, owner, lease);
      }
      List<ClaimResult> results = new ArrayList<>(claims.size());
      for (BatchClaims.Claim claim : claims) {
        results.add(store.claim(claim.key(), claim.fingerprint(), owner, lease));
      }
      return results;
    } catch (RuntimeException e) {
      events.emit(Type.STORE_ERROR, plan, null, e);
      // keys claimed before the failure stay in progress until their leases run out: nothing ran
      throw new IdempotencyStoreException("The idempotency store failed to claim the keys of a batch of "
          + plan.description + "; no item ran", e, plan.name, null);
    }
  }

  /** Runs a claimed item; its outcome joins the completions, or its key is released when it must run again. */
  private Item runItem(int i, String key, Body body, List<BatchClaims.Completion> completions,
      List<Integer> completedItems) {
    Object value;
    try {
      value = body.run(i);
    } catch (Throwable t) {
      StoredOutcome failure = plan.isFinal(t) ? recorder.finalFailure(plan, key, t) : null;
      if (failure != null) {
        completions.add(new BatchClaims.Completion(key, failure));
        completedItems.add(i);
      } else {
        release(key, t);
      }
      return new Item(null, t, CallOutcome.EXECUTED);
    }
    try {
      completions.add(new BatchClaims.Completion(key, recorder.recorded(plan, value)));
      completedItems.add(i);
      return new Item(value, null, CallOutcome.EXECUTED);
    } catch (IdempotencyResultException e) {
      release(key, e);
      return new Item(null, e, CallOutcome.EXECUTED);
    }
  }

  private void release(String key, Throwable cause) {
    events.emit(Type.RELEASED_ON_FAILURE, plan, key, cause);
    try {
      store.release(key, owner);
    } catch (IdempotencyRollbackRequiredException e) {
      e.addSuppressed(cause); // the batch's transaction holds the item's writes: the whole batch rolls back
      throw e;
    } catch (RuntimeException e) {
      events.emit(Type.STORE_ERROR, plan, key, e); // the key stays in progress until its lease runs out
    }
  }

  private void completeAll(List<BatchClaims.Completion> completions, List<Integer> items, String[] storedKeys) {
    if (completions.isEmpty()) {
      return;
    }
    Duration ttl = recorder.ttl(plan);
    boolean[] recorded;
    try {
      if (store instanceof BatchClaims batch) {
        recorded = batch.completeAll(completions, owner, ttl);
      } else {
        recorded = new boolean[completions.size()];
        for (int c = 0; c < completions.size(); c++) {
          recorded[c] = store.complete(completions.get(c).key(), owner, completions.get(c).outcome(), ttl);
        }
      }
    } catch (IdempotencyRollbackRequiredException e) {
      throw e; // the batch's transaction, which holds what its items wrote, must roll back: it runs again
    } catch (RuntimeException e) {
      events.emit(Type.STORE_ERROR, plan, null, e);
      throw new IdempotencyStoreException("The items of a batch of " + plan.description + " ran, but the store"
          + " failed to record their outcomes; their keys stay in progress until their leases run out", e,
          plan.name, null);
    }
    for (int c = 0; c < recorded.length; c++) {
      String key = storedKeys[items.get(c)];
      boolean failure = completions.get(c).outcome().kind() == StoredOutcome.Kind.FAILURE;
      events.emit(!recorded[c] ? Type.LEASE_LOST : failure ? Type.FAILURE_STORED : Type.EXECUTED, plan, key, null);
    }
  }

  /** The answer for an item whose key was live: a replay, a reused key or a call in progress elsewhere. */
  private Item answerFrom(IdempotencyRecord record, String fingerprint, String key) {
    if (plan.checkPayload && !record.fingerprint().isEmpty() && !record.fingerprint().equals(fingerprint)) {
      events.emit(Type.KEY_REUSED, plan, key, null);
      return new Item(null, reused(key), null);
    }
    if (record.state() != RecordState.COMPLETED) {
      events.emit(Type.IN_PROGRESS, plan, key, null);
      return new Item(null, new IdempotencyInProgressException("An item of a batch of " + plan.description
          + " has the key of a call in progress (key#" + Hashing.shortReference(key) + "); it did not run",
          null, plan.name, Hashing.shortReference(key)), null);
    }
    events.emit(Type.REPLAYED, plan, key, null);
    try {
      return new Item(replays.replayed(plan, record.outcome()), null, CallOutcome.REPLAYED);
    } catch (Throwable t) {
      return new Item(null, t, CallOutcome.REPLAYED); // a recorded final failure, recreated
    }
  }

  /** An item whose key an earlier item of the same batch had: answered as a retry of that item would be. */
  private Item duplicateOf(Item first, String fingerprint, String key, String firstFingerprint) {
    if (plan.checkPayload && !fingerprint.equals(firstFingerprint)) {
      events.emit(Type.KEY_REUSED, plan, key, null);
      return new Item(null, reused(key), null);
    }
    if (first.outcome() == null) {
      return first; // the earlier item was refused: this one is, for the same reason
    }
    if (first.outcome() == CallOutcome.EXECUTED && first.failure() != null && !plan.isFinal(first.failure())) {
      return new Item(null, first.failure(), null); // its key was released: a redelivery runs it
    }
    events.emit(Type.REPLAYED, plan, key, null);
    return new Item(first.value(), first.failure(), CallOutcome.REPLAYED);
  }

  private IdempotencyKeyReusedException reused(String key) {
    return new IdempotencyKeyReusedException("The key of an item of a batch of " + plan.description + " (key#"
        + Hashing.shortReference(key) + ") was already used with a different payload; it did not run", null,
        plan.name, Hashing.shortReference(key));
  }
}
