package io.idempotent.jdbi;

import io.idempotent.Effects;
import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.spi.ClaimResult;
import io.idempotent.spi.IdempotencyRecord;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Where a method call's claim and outcome are written, as its declared {@link Effects} (or, undeclared, the
 * store's mode) say (see docs/DESIGN.md, Transactions): a transactional call in the transaction the calling
 * thread has open on the store's database; any other call on its own, the way the mode records such calls.
 * Each {@link TransactionMode} is one routing, made by {@link #of}: what an undeclared call is taken for,
 * and how a call recorded on its own claims. Immutable and thread-safe.
 */
final class CallRouting {

  private final Effects undeclaredAs;
  /** How a call recorded on its own claims: committed at once, or in a transaction of the store's own. */
  private final Function<TableStatements.ClaimRequest, ClaimResult> own;
  private final CallerTransactions transactions;
  private final TransactionScopedClaims scoped;
  private final CommittedWork work;
  private final boolean requireTransaction;
  /** The store, named in refusals. */
  private final Object store;

  private CallRouting(Effects undeclaredAs, Function<TableStatements.ClaimRequest, ClaimResult> own,
      CallerTransactions transactions, TransactionScopedClaims scoped, CommittedWork work,
      boolean requireTransaction, Object store) {
    this.undeclaredAs = undeclaredAs;
    this.own = own;
    this.transactions = transactions;
    this.scoped = scoped;
    this.work = work;
    this.requireTransaction = requireTransaction;
    this.store = store;
  }

  /** The routing of {@code mode}: the one place that tells the modes apart. */
  static CallRouting of(TransactionMode mode, CallerTransactions transactions, TransactionScopedClaims scoped,
      CommittedWork work, boolean requireTransaction, Object store) {
    Function<TableStatements.ClaimRequest, ClaimResult> atOnce = work::claim;
    Function<TableStatements.ClaimRequest, ClaimResult> inOwnTransaction = scoped::claimOwn;
    return switch (mode) {
      case INDEPENDENT -> new CallRouting(Effects.UNDECLARED, atOnce, transactions, scoped, work,
          requireTransaction, store);
      case JOINED -> new CallRouting(Effects.TRANSACTIONAL, atOnce, transactions, scoped, work,
          requireTransaction, store);
      case TRANSACTION_SCOPED -> new CallRouting(Effects.UNDECLARED, inOwnTransaction, transactions, scoped, work,
          requireTransaction, store);
      case JOINED_TRANSACTION_SCOPED -> new CallRouting(Effects.TRANSACTIONAL, inOwnTransaction, transactions,
          scoped, work, requireTransaction, store);
    };
  }

  /**
   * The transaction a batch's claims and outcomes are written in: the one the calling thread has open, in a
   * mode that joins it (docs/MESSAGING.md, Batches); null when the batch's writes commit at once.
   */
  CallerTransactions.@Nullable Transaction batchTransaction() {
    return undeclaredAs == Effects.TRANSACTIONAL ? transactions.current() : null;
  }

  /**
   * Claims for a call declared with {@code effects}. Before anything is written it refuses a transactional
   * call with no transaction to join (unless the store does not require one) and an undeclared call made
   * inside a transaction in a mode that does not join one: which of the two the method needs only the
   * application knows.
   */
  ClaimResult claim(TableStatements.ClaimRequest request, Effects effects) {
    Effects declared = effects == Effects.UNDECLARED ? undeclaredAs : effects;
    if (declared == Effects.EXTERNAL) {
      return own.apply(request);
    }
    CallerTransactions.Transaction caller = transactions.current(); // refuses an ambiguous thread first
    if (caller != null) {
      if (declared == Effects.TRANSACTIONAL) {
        return scoped.claimJoined(caller, request);
      }
      return existingOr(request, () -> undeclaredInATransaction(transactions.joinable()));
    }
    String other = transactions.unjoinable();
    if (other != null) {
      if (declared == Effects.TRANSACTIONAL) {
        return existingOr(request, () -> new IdempotencyConfigurationException("The call is declared"
            + " Effects.TRANSACTIONAL, but the calling thread's transaction is " + other + ", which the"
            + " idempotency store " + store + " cannot write in; the method did not run. Run it in a transaction"
            + " on the store's database, or declare @Idempotent(effects = Effects.EXTERNAL) if its effects are"
            + " outside that transaction"));
      }
      return existingOr(request, () -> undeclaredInATransaction(other));
    }
    if (declared == Effects.TRANSACTIONAL && requireTransaction) {
      return existingOr(request, () -> new IdempotencyConfigurationException("The idempotency store " + store
          + " takes this call as"
          + " transactional" + (effects == Effects.UNDECLARED ? " (its mode joins the caller's transaction)" : "")
          + ", but the calling thread has no " + transactions.joinable() + ", so the outcome could not commit or"
          + " roll back together with the method's writes; the method did not run. Call it inside such a"
          + " transaction; declare @Idempotent(effects = Effects.EXTERNAL) if its effects are outside any"
          + " transaction; or build the store with requireTransaction(false) (property"
          + " idempotent.jdbi.require-transaction=false) to record such calls on their own."));
    }
    return own.apply(request);
  }

  /**
   * The live record of the key, for a call that could not be recorded the way it is made: a replay (or a
   * duplicate of a running call) writes nothing, so it needs no decision; a call that would claim the key is
   * refused with {@code refusal}.
   */
  private ClaimResult existingOr(TableStatements.ClaimRequest request,
      Supplier<IdempotencyConfigurationException> refusal) {
    Optional<IdempotencyRecord> live = scoped.find(request.key(), work::repeating);
    if (live.isPresent()) {
      return ClaimResult.existing(live.get());
    }
    throw refusal.get();
  }

  private IdempotencyConfigurationException undeclaredInATransaction(String transaction) {
    return new IdempotencyConfigurationException("The call runs inside a " + transaction + ", and does not say"
        + " where its effects live: recorded on its own, its outcome would be replayed after that transaction"
        + " rolled its effects back; recorded in the transaction, an effect outside it (an external API) would"
        + " run again after a rollback. The method did not run. Declare @Idempotent(effects ="
        + " Effects.TRANSACTIONAL) when its effects are writes in that transaction on the store's database"
        + " (the outcome then commits or rolls back with them), or Effects.EXTERNAL when they are outside it (the"
        + " outcome then survives a rollback); or give the idempotency store " + store + " a joined mode (property"
        + " idempotent.jdbi.mode=joined), which takes undeclared calls as transactional.");
  }
}
