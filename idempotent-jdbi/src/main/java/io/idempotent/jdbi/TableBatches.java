package io.idempotent.jdbi;

import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.RecordState;
import io.idempotent.spi.StoreKeyRules;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The table store's batch claims ({@link BatchClaims}; docs/MESSAGING.md, Batches): a batch's keys claimed,
 * and its outcomes recorded, in the caller's transaction in a joined mode, each committed at once otherwise.
 * Thread-safe.
 */
final class TableBatches {

  /** The keys the table keeps as given. */
  private final StoreKeyRules keyRules;
  private final TableStatements statements;
  private final CommittedWork work;
  private final CallRouting routing;
  private final TransactionScopedClaims scoped;
  /** Each open batch in a caller's transaction, by the batch's owner token. */
  private final Map<String, JoinedBatch> joinedBatches = new ConcurrentHashMap<>();

  /**
   * A batch in the caller's {@code transaction}. Recorded on completion ({@link PostgresBatchRecords}),
   * {@code fingerprints} holds the fingerprint of each key it may record and {@code expired} the keys whose
   * expired row it replaces; claimed first, both are empty.
   */
  private record JoinedBatch(CallerTransactions.Transaction transaction, Map<String, String> fingerprints,
      Set<String> expired) {

    boolean recordedOnCompletion() {
      return !fingerprints.isEmpty();
    }
  }

  TableBatches(StoreKeyRules keyRules, TableStatements statements, CommittedWork work, CallRouting routing,
      TransactionScopedClaims scoped) {
    this.keyRules = keyRules;
    this.statements = statements;
    this.work = work;
    this.routing = routing;
    this.scoped = scoped;
  }

  /**
   * Claims a batch's keys: in one statement on PostgreSQL, key by key on the other databases. In a joined
   * mode with a transaction open on the calling thread they are claimed in it, and its commit records them
   * with the batch's outcomes and writes; on PostgreSQL they are only read there, and the outcomes inserted
   * on completion ({@link PostgresBatchRecords}). Otherwise each claim commits at once.
   */
  List<ClaimResult> claimAll(List<BatchClaims.Claim> claims, String owner, long leaseMicros) {
    Objects.requireNonNull(owner, "owner");
    List<TableStatements.ClaimRequest> requests = new ArrayList<>(claims.size());
    for (BatchClaims.Claim c : claims) {
      requests.add(new TableStatements.ClaimRequest(keyRules.requireAccepted(c.key()),
          Objects.requireNonNull(c.fingerprint(), "fingerprint"), owner, leaseMicros));
    }
    if (requests.isEmpty()) {
      return List.of();
    }
    CallerTransactions.Transaction joined = routing.batchTransaction();
    PostgresBatchRecords records = statements.batchRecords();
    if (joined != null && records != null) {
      return readForCompletion(joined, records, requests, owner);
    }
    List<TableStatements.@Nullable Claim> found = joined != null ? statements.claimAll(joined.connection(), requests)
        : work.repeating(c -> statements.claimAll(c, requests));
    List<ClaimResult> results = new ArrayList<>(requests.size());
    boolean claimedAny = false;
    for (int i = 0; i < requests.size(); i++) {
      TableStatements.ClaimRequest r = requests.get(i);
      TableStatements.Claim claim = found.get(i);
      // a key whose row a concurrent commit hid from the batch's statement is claimed again on its own
      ClaimResult result = claim != null ? CommittedWork.answer(claim)
          : joined != null ? claimAlone(joined, r) : work.claim(r);
      claimedAny |= result.claimed();
      results.add(result);
    }
    if (joined != null && claimedAny) {
      open(new JoinedBatch(joined, Map.of(), Set.of()), owner, requests, results);
    }
    return results;
  }

  /**
   * A batch recorded on completion: its keys' rows read, nothing written. A key with no live row counts as
   * claimed, and is recorded by {@link #completeAll}, or not at all if the transaction rolls back.
   */
  private List<ClaimResult> readForCompletion(CallerTransactions.Transaction joined, PostgresBatchRecords records,
      List<TableStatements.ClaimRequest> requests, String owner) {
    String[] keys = new String[requests.size()];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = requests.get(i).key();
    }
    List<@Nullable StoredRow> found = records.read(joined.connection(), keys);
    List<ClaimResult> results = new ArrayList<>(keys.length);
    Map<String, String> fingerprints = new HashMap<>();
    Set<String> expired = new HashSet<>();
    for (int i = 0; i < keys.length; i++) {
      StoredRow row = found.get(i);
      if (row != null && row.expiresInMicros() > 0) {
        results.add(ClaimResult.existing(row.toRecord(keys[i])));
        continue;
      }
      fingerprints.put(keys[i], requests.get(i).fingerprint());
      if (row != null) {
        expired.add(keys[i]);
      }
      results.add(row != null && row.state() == RecordState.IN_PROGRESS ? ClaimResult.takenOver()
          : ClaimResult.acquired());
    }
    if (!fingerprints.isEmpty()) {
      open(new JoinedBatch(joined, fingerprints, expired), owner, requests, results);
    }
    return results;
  }

  /** Remembers an open batch until its transaction ends. */
  private void open(JoinedBatch batch, String owner, List<TableStatements.ClaimRequest> requests,
      List<ClaimResult> results) {
    joinedBatches.put(owner, batch);
    for (int i = 0; i < requests.size(); i++) {
      if (results.get(i).claimed()) {
        batch.transaction().joining(requests.get(i).key(), () -> joinedBatches.remove(owner));
      }
    }
    batch.transaction().afterCommit(() -> joinedBatches.remove(owner));
  }

  private ClaimResult claimAlone(CallerTransactions.Transaction joined, TableStatements.ClaimRequest r) {
    for (int attempt = 1; attempt <= CommittedWork.ATTEMPTS; attempt++) {
      TableStatements.Claim claim = statements.claim(joined.connection(), r);
      if (claim != null) {
        return CommittedWork.answer(claim);
      }
    }
    throw new IdempotencyStoreException("The claim did not settle after " + CommittedWork.ATTEMPTS
        + " attempts under contention", null);
  }

  /**
   * Records a batch's outcomes: in one statement on PostgreSQL, key by key on the other databases; in the
   * transaction the batch claimed its keys in while it is still open.
   */
  boolean[] completeAll(List<BatchClaims.Completion> completions, String owner, long ttlMicros) {
    List<String> keys = new ArrayList<>(completions.size());
    List<OutcomeFields> outcomes = new ArrayList<>(completions.size());
    for (BatchClaims.Completion c : completions) {
      keys.add(keyRules.requireAccepted(c.key()));
      outcomes.add(OutcomeFields.of(c.outcome())); // encodes first: a failure leaves every row untouched
    }
    if (keys.isEmpty()) {
      return new boolean[0];
    }
    JoinedBatch batch = joinedBatches.get(owner);
    if (batch != null && batch.transaction() == scoped.currentOrNone()) {
      Connection c = batch.transaction().connection();
      return batch.recordedOnCompletion() ? recordOnCompletion(batch, c, keys, owner, outcomes, ttlMicros)
          : statements.completeAll(c, keys, owner, outcomes, ttlMicros);
    }
    // claims committed at once, or with a transaction that has ended since: the batch has run, so its
    // outcomes wait their turn for a connection even while the store's other operations pause
    return work.repeating(c -> statements.completeAll(c, keys, owner, outcomes, ttlMicros), false);
  }

  /**
   * Records a batch read for completion: its expired rows replaced and its outcomes inserted, in the caller's
   * transaction. A key it did not count as claimed is not recorded.
   *
   * @throws IdempotencyRollbackRequiredException when another transaction wrote a row of one of its keys since
   *     the batch read them: what the items wrote must roll back, and the redelivered batch replays that row
   */
  private boolean[] recordOnCompletion(JoinedBatch batch, Connection c, List<String> keys, String owner,
      List<OutcomeFields> outcomes, long ttlMicros) {
    PostgresBatchRecords records = Objects.requireNonNull(statements.batchRecords(), "batch records");
    boolean[] done = new boolean[keys.size()];
    List<String> inserted = new ArrayList<>(keys.size());
    List<String> fingerprints = new ArrayList<>(keys.size());
    List<OutcomeFields> recorded = new ArrayList<>(keys.size());
    List<String> replaced = new ArrayList<>();
    for (int i = 0; i < done.length; i++) {
      String fingerprint = batch.fingerprints().get(keys.get(i));
      if (fingerprint != null) {
        done[i] = true;
        inserted.add(keys.get(i));
        fingerprints.add(fingerprint);
        recorded.add(outcomes.get(i));
        if (batch.expired().contains(keys.get(i))) {
          replaced.add(keys.get(i));
        }
      }
    }
    if (inserted.isEmpty()) {
      return done;
    }
    if ((!replaced.isEmpty() && !records.deleteExpired(c, replaced))
        || !records.insertCompleted(c, inserted.toArray(new String[0]), fingerprints.toArray(new String[0]), owner,
            recorded, ttlMicros)) {
      throw new IdempotencyRollbackRequiredException("Another transaction recorded or claimed a key of a batch"
          + " while the batch ran in the caller's transaction: the transaction must roll back, with what the"
          + " batch's items wrote, and every message of the batch is delivered again (a redelivery replays that"
          + " key's outcome)", null);
    }
    return done;
  }

  /**
   * Refuses to release a key of a batch whose claims are in the caller's transaction: the item that failed
   * wrote there too, so the whole transaction must roll back, and the batch is delivered again.
   */
  void refuseReleaseInCallerTransaction(String owner) {
    if (joinedBatches.containsKey(owner)) {
      throw new IdempotencyRollbackRequiredException("An item of a batch failed inside the caller's transaction,"
          + " which holds the batch's claims and what the item wrote before it failed: the transaction must roll"
          + " back, and every message of the batch is delivered again", null);
    }
  }
}
