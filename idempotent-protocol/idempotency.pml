/*
 * The claim protocol of docs/DESIGN.md §11, for one key, as a Promela model that spin checks exhaustively
 * (the script `check` beside it runs every configuration and every broken variant).
 *
 * Callers with the same key and the same arguments each make a call, and retry it until they are answered
 * (a poll on "in progress", a new attempt after a crash, a store error or a non-final exception). A store
 * holds the key's record and changes it only in atomic steps: claim, renew, complete, release, look-up. A
 * clock moves in ticks; a lease is LEASE ticks, renewed every RENEW ticks of the caller's clock, which may
 * run up to DRIFT ticks late per renewal. Callers pause (a GC, a network stall) for up to MAXPAUSE ticks,
 * crash, and meet store outages of up to MAXOUTAGE ticks, each within a budget.
 *
 * MODE selects how a claim relates to transactions (docs/DESIGN.md §7):
 *   0  a call recorded on its own in INDEPENDENT or JOINED mode, and every Caffeine or Redis call: each
 *      store operation commits at once; a claim has a lease; a completion that fails is tried again in the
 *      background while the lease is renewed (the late outcome of §4);
 *   1  a call recorded on its own in TRANSACTION_SCOPED mode: the claim row is held uncommitted in a
 *      transaction of the store's own until the completion writes the outcome and commits it; a crash or a
 *      lost connection rolls it back;
 *   2  a transactional call: the claim, the method's database write and the outcome are written in the
 *      caller's transaction and commit together; the database may end that transaction (a deadlock, a
 *      session timeout, a lost connection) at any moment before its commit.
 *
 * Broken variants, each the way the code could break, are switched on with -D and must give a trail:
 *   NO_FENCE             complete writes without checking the owner (or the state)
 *   RELEASE_UNFENCED     release deletes the key's claim whoever holds it
 *   NONATOMIC_CLAIM      claim reads the record and writes its own in a second step
 *   NO_TAKEOVER          an expired claim is never replaced
 *   NO_COMPLETION_RETRY  a completion that failed is not tried again (and the lease is no longer renewed)
 *   OUTCOME_OUTSIDE_TX   mode 2 commits the outcome on its own, before the caller's transaction commits
 *   SESSION_TIMEOUT      mode 1's own transaction can be ended by an idle-in-transaction timeout
 *   DIRTY_READ           a duplicate reads an outcome written in a transaction that has not committed
 */

#ifndef CALLERS
#define CALLERS 2
#endif
#ifndef MODE
#define MODE 0
#endif
#ifndef LEASE
#define LEASE 6
#endif
#ifndef RENEW
#define RENEW 2
#endif
#ifndef DRIFT
#define DRIFT 1
#endif
/* ticks a method runs at most (it may return sooner) */
#ifndef MAXRUN
#define MAXRUN 4
#endif
#ifndef ATTEMPTS
#define ATTEMPTS 2
#endif
#ifndef PAUSES
#define PAUSES 1
#endif
#ifndef MAXPAUSE
#define MAXPAUSE 1
#endif
#ifndef CRASHES
#define CRASHES 1
#endif
#ifndef FAILS
#define FAILS 1
#endif
#ifndef OUTAGES
#define OUTAGES 1
#endif
#ifndef MAXOUTAGE
#define MAXOUTAGE 1
#endif
#ifndef ABORTS
#define ABORTS 1
#endif
/* 1: also assert what holds only while an owner's renewals reach the store in time (the known limit:
   a stall, a store outage and the drift of the caller's clock that add up to LEASE - RENEW ticks) */
#ifndef WITHIN_LEASE
#define WITHIN_LEASE 1
#endif

#define MAXC 3
#define TOKENS (MAXC * ATTEMPTS + 1)
/* owner token of caller i's attempt a (0 is nobody) */
#define TOKEN(i, a) ((i) * ATTEMPTS + (a) + 1)

mtype = { ABSENT, IN_PROGRESS, COMPLETED };
/* what a claim answers */
mtype = { ACQUIRED, BUSY, REPLAY, STORE_ERROR };
/* where a caller is */
mtype = { IDLE, RUNNING, RECORDING, COMMITTING, DONE };

/* ---- the store: the key's committed record ---- */
mtype st = ABSENT;
byte owner;        /* token of the IN_PROGRESS or COMPLETED record */
byte leaseLeft;    /* ticks until an IN_PROGRESS record's lease runs out, by the store's clock */
byte outcome;      /* the token whose execution produced the COMPLETED record's outcome */
/* modes 1 and 2: the owner token whose claim row is written in a transaction that has not committed
   (0: none), and whether that transaction holds an outcome too */
byte locked;
bool lockedOutcome;
byte outageLeft;   /* > 0: every store operation fails */

/* ---- the callers ---- */
mtype phase[MAXC];
byte renewIn[MAXC];    /* ticks of the caller's clock until its renewal falls due */
bool renewing[MAXC];   /* the lease renewer holds this caller's claim */
byte retryIn[MAXC];    /* ticks until a failed completion is tried again */
byte pauseLeft[MAXC];  /* > 0: the caller's process is stalled */
byte runLeft[MAXC];    /* ticks until the running method has returned, thrown or died */
byte answered;           /* callers answered or out of attempts */

/* ---- ghost state the properties read; the protocol never reads it ---- */
byte running;              /* executions of the method under way */
byte returned;             /* executions that returned (their effect happened) */
byte lostReturned;         /* of those, the ones whose outcome was lost with a crash or a rolled-back claim */
byte committedEffects;     /* mode 2: the method's database writes that committed */
bool effectDone[TOKENS];   /* the execution returned (modes 0, 1) or its transaction committed (mode 2) */
bool fencedOut[TOKENS];    /* the token's claim was taken over: it holds nothing any more */
byte firstOutcome;         /* the first outcome ever recorded */
bool orphan[MAXC];         /* the caller's execution runs on, but the database rolled its claim back */
byte orphans;              /* running executions that are orphans */
bool effect[MAXC];         /* the caller's current execution returned */
bool lostCounted[MAXC];    /* ... and its outcome was counted as lost */

/* budgets of the environment's faults */
byte pauses, crashes, fails, outages, aborts;

#define URGENT(i) (pauseLeft[i] == 0 && ((renewing[i] && renewIn[i] == 0) \
                   || (phase[i] == RECORDING && retryIn[i] == 0) || (phase[i] == RUNNING && runLeft[i] == 0)))

/* Time moves only when no caller has a renewal or a completion attempt due: a caller that is not paused
   acts on time. A tick moves every timer by one. */
active proctype Clock() {
  byte j;
  do
  :: atomic {
       !URGENT(0) && !URGENT(1) && !URGENT(2) ->
       if :: leaseLeft > 0 -> leaseLeft-- :: else fi;
       if :: outageLeft > 0 -> outageLeft-- :: else fi;
       j = 0;
       do
       :: j < MAXC ->
          if :: renewIn[j] > 0 -> renewIn[j]-- :: else fi;
          if :: retryIn[j] > 0 -> retryIn[j]-- :: else fi;
          if :: pauseLeft[j] > 0 -> pauseLeft[j]-- :: else fi;
          if :: runLeft[j] > 0 -> runLeft[j]-- :: else fi;
          j++
       :: else -> break
       od;
       j = 0;
       printf("tick: lease left %d\n", leaseLeft)
     }
  od
}

/* the transaction holding `tok`'s uncommitted claim row ends (committed or rolled back) */
inline unlock() {
  locked = 0;
  lockedOutcome = false
}

/* the database rolls back the transaction holding `tok`'s claim row (a lost connection, a deadlock, a
   timeout it enforces): an execution still running under that claim no longer holds the key */
inline rollBack(c) {
  printf("the database rolls back caller %d's claim\n", c);
  if
  :: phase[c] == RUNNING && !orphan[c] -> orphan[c] = true; orphans++
  :: phase[c] != RUNNING && effect[c] && !lostCounted[c] -> lostReturned++; lostCounted[c] = true
  :: else
  fi;
  unlock()
}

/* A store outage begins, within its budget. */
active proctype Outages() {
  do
  :: atomic {
       outages < OUTAGES && outageLeft == 0 ->
       outages++;
       select(outageLeft : 1 .. MAXOUTAGE);
       printf("store outage for %d ticks\n", outageLeft);
#if MODE == 1
       /* the store's own transaction dies with its connection: the database rolls the claim back */
       if
       :: locked != 0 -> rollBack((locked - 1) / ATTEMPTS)
       :: else
       fi
#endif
     }
  od
}

/* ---- the store's atomic operations ---- */

inline writeClaim(tok) {
#if MODE == 0
  if
  :: st == IN_PROGRESS -> fencedOut[owner] = true;   /* an expired claim taken over */
     if
     :: leaseLeft == 0 -> printf("owner %d's expired claim taken over\n", owner)
     :: else -> printf("owner %d's live claim overwritten\n", owner)
     fi
  :: else
  fi;
  st = IN_PROGRESS;
  owner = tok;
  leaseLeft = LEASE
#else
  locked = tok
#endif
}

/* what a claim finds when it does not write: another's claim or outcome (free_: it may write) */
inline look(answer, seen, free_) {
  if
#ifdef DIRTY_READ
  :: locked != 0 && lockedOutcome -> answer = REPLAY; seen = locked
  :: locked != 0 && !lockedOutcome -> answer = BUSY
#else
  :: locked != 0 -> answer = BUSY    /* the row is locked by an open transaction: in progress */
#endif
  :: locked == 0 && st == COMPLETED -> answer = REPLAY; seen = outcome
  :: locked == 0 && st == IN_PROGRESS && leaseLeft > 0 -> answer = BUSY
#ifdef NO_TAKEOVER
  :: locked == 0 && st == IN_PROGRESS && leaseLeft == 0 -> answer = BUSY
  :: locked == 0 && st == ABSENT -> free_ = true
#else
  :: locked == 0 && (st == ABSENT || (st == IN_PROGRESS && leaseLeft == 0)) -> free_ = true
#endif
  fi
}

/* caller i's claim was written: its execution begins (in the claim's step, but for NONATOMIC_CLAIM) */
inline begin() {
  answer = ACQUIRED;
  printf("caller %d claims (owner %d) and runs\n", i, tok);
  running++;
#if WITHIN_LEASE
  /* a second execution starts only when every earlier one that returned lost its outcome (a crash, a
     rolled-back claim) */
  assert(returned == lostReturned);
  /* two run at once only when the first's claim was rolled back under it */
  assert(running - orphans <= 1);
#endif
  phase[i] = RUNNING;
  runLeft[i] = MAXRUN;
#if MODE == 0
  renewing[i] = true;
  select(r_ : RENEW .. RENEW + DRIFT); renewIn[i] = r_
#endif
}

inline claim(tok, answer, seen, free_) {
  free_ = false;
#ifdef NONATOMIC_CLAIM
  /* looks first, then writes: another claim can land between the two steps */
  atomic {
    if
    :: outageLeft > 0 -> answer = STORE_ERROR
    :: else -> look(answer, seen, free_)
    fi
  }
  if
  :: free_ -> atomic { writeClaim(tok); begin() }
  :: else
  fi
#else
  atomic {
    if
    :: outageLeft > 0 -> answer = STORE_ERROR
    :: else ->
       look(answer, seen, free_);
       if
       :: free_ -> writeClaim(tok); begin()
       :: else
       fi
    fi
  }
#endif
}

/* every write to the record by `tok`: a fenced-out owner must never make one */
inline written(tok) {
  assert(!fencedOut[tok])
}

/* the record becomes COMPLETED with `tok`'s outcome: at most one outcome is ever recorded for the key */
inline recordOutcome(tok) {
  assert(st != COMPLETED);
  st = COMPLETED;
  outcome = tok;
  if :: firstOutcome == 0 -> firstOutcome = tok :: else fi;
  assert(firstOutcome == tok)
}

/* mode 0: renew; ok is false when the store failed, lost when the claim is not tok's any more */
inline renew(tok, ok, lost) {
  atomic {
    if
    :: outageLeft > 0 -> ok = false
    :: else ->
       ok = true;
       if
       :: st == IN_PROGRESS && owner == tok -> written(tok); leaseLeft = LEASE; lost = false
       :: else -> lost = true
       fi
    fi
  }
}

/* mode 0: complete, fenced by the owner token (a late owner nobody replaced still holds its claim) */
inline complete(tok, ok, lost) {
  atomic {
    if
    :: outageLeft > 0 -> ok = false
    :: else ->
       ok = true;
       if
#ifdef NO_FENCE
       :: true -> written(tok); recordOutcome(tok); lost = false
#else
       :: st == IN_PROGRESS && owner == tok -> written(tok); recordOutcome(tok); lost = false
       :: else -> lost = true
#endif
       fi
    fi
  }
}

/* mode 0: release, fenced by the owner token; a release the store fails leaves the lease to run out */
inline release(tok) {
  atomic {
    if
    :: outageLeft > 0 -> skip
    :: else ->
       if
#ifdef RELEASE_UNFENCED
       :: st == IN_PROGRESS -> written(tok); st = ABSENT
#else
       :: st == IN_PROGRESS && owner == tok -> written(tok); st = ABSENT
#endif
       :: else
       fi
    fi
  }
}

/* mode 0: the renewer's step for caller i's claim */
inline renewDue() {
  renew(tok, ok, lost);
  if
  :: ok && !lost -> select(r_ : RENEW .. RENEW + DRIFT); renewIn[i] = r_;
     printf("caller %d renews its lease\n", i)
  :: ok && lost -> renewing[i] = false;        /* LEASE_LOST: renewal stops; the call goes on */
     printf("caller %d's renewal is refused: lease lost\n", i)
  :: !ok -> renewIn[i] = 1;                    /* STORE_ERROR: tried again after half an interval */
     printf("caller %d's renewal fails\n", i)
  fi
}

/* ---- a caller ---- */

inline endExecution() {
  running--;
  if :: effect[i] -> returned++ :: else fi;
  if
  :: orphan[i] -> orphan[i] = false; orphans--;
     outcomeLost()   /* its claim is gone: its outcome can no longer be recorded */
  :: else
  fi
}

/* the attempt ends without an outcome (a crash, a rollback, a failure); the caller tries again */
inline nextAttempt() {
  attempt++;
  if
  :: attempt >= ATTEMPTS -> phase[i] = DONE; answered++
  :: else -> phase[i] = IDLE
  fi
}

/* the outcome of a method that returned will never be recorded: a crash or a rollback took it */
inline outcomeLost() {
  if :: effect[i] && !lostCounted[i] -> lostReturned++; lostCounted[i] = true :: else fi
}

inline pause() {
  atomic {
    pauses < PAUSES -> pauses++; select(r_ : 1 .. MAXPAUSE); pauseLeft[i] = r_;
    printf("caller %d stalls for %d ticks\n", i, r_)
  }
}

/* the caller's process dies; the database rolls back a transaction it held */
inline crash() {
  atomic {
    crashes < CRASHES ->
    crashes++;
    printf("caller %d's process dies\n", i);
    renewing[i] = false;
    if :: phase[i] == RUNNING -> endExecution() :: else fi;
    outcomeLost();
#if MODE != 0
    if :: locked == tok -> unlock() :: else fi;
#endif
    nextAttempt()
  }
}

proctype Caller(byte i) {
  byte attempt = 0;
  byte tok;
  mtype answer;
  byte seen;
  byte r_;
  bool ok, lost, free_;

  do
  :: phase[i] == IDLE ->
     tok = TOKEN(i, attempt);
     effect[i] = false;
     lostCounted[i] = false;
     claim(tok, answer, seen, free_);
     if
     :: answer == REPLAY ->
        /* REPLAYED only for an outcome that is committed, and always the one outcome */
        printf("caller %d is answered REPLAYED with owner %d's outcome\n", i, seen);
        assert(effectDone[seen] && seen == firstOutcome);
        phase[i] = DONE; answered++
     :: answer == BUSY -> printf("caller %d finds the key in progress\n", i)   /* polls again (WAIT) */
     :: answer == STORE_ERROR -> printf("caller %d's claim fails\n", i)     /* tries again */
     :: answer == ACQUIRED                                /* runs: begun in the claim's step */
     fi

  /* the method runs: it may stall, have its lease renewed, return or throw, or the process may die */
  :: phase[i] == RUNNING && pauseLeft[i] == 0 ->
     if
     :: pause()
     :: crash()
#if MODE == 0
     :: renewing[i] && renewIn[i] == 0 -> renewDue()
#endif
#if MODE == 2 || (MODE == 1 && defined(SESSION_TIMEOUT))
     :: atomic {
          aborts < ABORTS && locked == tok -> aborts++;
#ifdef SESSION_TIMEOUT
          printf("an idle-in-transaction timeout ends caller %d's claim\n", i);
          unlock()      /* an idle-in-transaction timeout: not a fault the protocol allows for */
#else
          rollBack(i)   /* a deadlock or a session timeout ends the caller's transaction */
#endif
        }
#endif
     :: atomic {                                      /* throws a non-final exception: released */
          fails < FAILS ->
          fails++;
          printf("caller %d's method throws: released\n", i);
          endExecution();
#if MODE == 0
          renewing[i] = false;
          release(tok);
#else
          if :: locked == tok -> unlock() :: else fi;  /* rolled back */
#endif
          nextAttempt()
        }
     :: atomic {                                      /* returns */
          effect[i] = true;
          printf("caller %d's method returns\n", i);
#if MODE != 2
          effectDone[tok] = true;   /* mode 2: its write is done when the transaction commits */
#endif
          endExecution();
          phase[i] = RECORDING;
          retryIn[i] = 0
        }
     fi

  /* the outcome is recorded: at once, or tried again until it is recorded or the claim is lost */
  :: phase[i] == RECORDING && pauseLeft[i] == 0 ->
     if
     :: pause()
     :: crash()
#if MODE == 0
     :: retryIn[i] == 0 ->
        complete(tok, ok, lost);
        printf("caller %d completes: %e\n", i, (!ok -> STORE_ERROR : (lost -> BUSY : COMPLETED)));
        if
        :: ok -> renewing[i] = false; phase[i] = DONE; answered++   /* recorded, or fenced (LEASE_LOST) */
#ifdef NO_COMPLETION_RETRY
        :: !ok -> renewing[i] = false; phase[i] = DONE; answered++  /* the outcome is dropped */
#else
        :: !ok -> retryIn[i] = 1                                /* STORE_ERROR: tried again later */
#endif
        fi
     :: renewing[i] && renewIn[i] == 0 -> renewDue()
#else
     :: retryIn[i] == 0 ->
        atomic {
          if
          :: locked == tok && outageLeft == 0 ->
#if MODE == 1
             /* the outcome is written in the store's own transaction, which commits */
             recordOutcome(tok); unlock(); phase[i] = DONE; answered++
#elif defined(OUTCOME_OUTSIDE_TX)
             /* the outcome is committed on its own; the transaction keeps the method's write */
             recordOutcome(tok); lockedOutcome = true; phase[i] = COMMITTING
#else
             /* the outcome is written in the caller's transaction, which commits next */
             lockedOutcome = true; phase[i] = COMMITTING
#endif
          :: else ->
             /* the claim's transaction is gone, or the store fails: the outcome cannot be written there
                (mode 2: IdempotencyRollbackRequiredException; the caller's transaction rolls back) */
             outcomeLost();
             if :: locked == tok -> unlock() :: else fi;
             nextAttempt()
          fi
        }
#endif
     fi

#if MODE == 2
  /* the caller's transaction commits, unless the database ends it first */
  :: phase[i] == COMMITTING && pauseLeft[i] == 0 ->
     if
     :: pause()
     :: crash()
     :: atomic { aborts < ABORTS && locked == tok -> aborts++; rollBack(i) }
     :: atomic {
          if
          :: locked == tok && outageLeft == 0 ->
             committedEffects++;
             assert(committedEffects <= 1);   /* the method's database write commits once */
             effectDone[tok] = true;
#ifndef OUTCOME_OUTSIDE_TX
             recordOutcome(tok);
#endif
             unlock();
             phase[i] = DONE; answered++
          :: else ->
             outcomeLost();
             if :: locked == tok -> unlock() :: else fi;
             nextAttempt()
          fi
        }
     fi
#endif

  :: phase[i] == DONE -> break
  od
}

init {
  byte k;
  atomic {
    do
    :: k < MAXC ->
       if :: k < CALLERS -> phase[k] = IDLE; run Caller(k) :: else -> phase[k] = DONE fi;
       k++
    :: else -> break
    od
  }
}

#ifdef PROGRESS
/* a key is never claimed forever: every caller is answered (or runs out of attempts) */
ltl progress { <> (answered == CALLERS) }
#endif
