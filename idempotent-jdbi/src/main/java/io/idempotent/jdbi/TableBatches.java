package io.idempotent.jdbi;

import io.idempotent.IdempotencyRollbackRequiredException;
import io.idempotent.IdempotencyStoreException;
import io.idempotent.spi.BatchClaims;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.OutcomeFields;
import io.idempotent.spi.StoreKeyRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
  /** The caller's transaction each open batch claimed its keys in, by the batch's owner token. */
  private final Map<String, CallerTransactions.Transaction> joinedBatches = new ConcurrentHashMap<>();

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
   * with the batch's outcomes and writes; otherwise each claim commits at once.
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
      joinedBatches.put(owner, joined);
      for (int i = 0; i < requests.size(); i++) {
        if (results.get(i).claimed()) {
          joined.joining(requests.get(i).key(), () -> joinedBatches.remove(owner));
        }
      }
      joined.afterCommit(() -> joinedBatches.remove(owner));
    }
    return results;
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
    CallerTransactions.Transaction joined = joinedBatches.get(owner);
    if (joined != null && joined == scoped.currentOrNone()) {
      return statements.completeAll(joined.connection(), keys, owner, outcomes, ttlMicros);
    }
    // claims committed at once, or with a transaction that has ended since: the batch has run, so its
    // outcomes wait their turn for a connection even while the store's other operations pause
    return work.repeating(c -> statements.completeAll(c, keys, owner, outcomes, ttlMicros), false);
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
