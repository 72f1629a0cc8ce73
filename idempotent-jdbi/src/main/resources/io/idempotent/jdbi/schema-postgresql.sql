-- idempotent: the idempotency record table for PostgreSQL 9.5 or later.
-- One row per stored key. A row is live while expires_at is in the future (database time):
-- for IN_PROGRESS rows expires_at is the lease deadline, for COMPLETED rows the end of the TTL.
-- purge_after says when the purge may delete the row; it is never before expires_at. The claim sets it
-- and the completion usually leaves it alone, so a completion changes no indexed column and is a HOT
-- update, for which the fillfactor leaves room on each page.
-- Keys are stored escaped (backslash as \\, U+0000 as \0), so the key column is compared byte for byte.
CREATE TABLE IF NOT EXISTS idempotency_record (
  idempotency_key text COLLATE "C" NOT NULL PRIMARY KEY,
  fingerprint     text NOT NULL,
  state           varchar(16) NOT NULL,
  owner_token     text,
  taken_over      boolean NOT NULL DEFAULT FALSE,
  expires_at      timestamptz NOT NULL,
  purge_after     timestamptz NOT NULL,
  outcome_kind    varchar(8),
  result_json     text,
  failure_type    text,
  failure_message text
) WITH (fillfactor = 70);
CREATE INDEX IF NOT EXISTS idempotency_record_purge_idx ON idempotency_record (purge_after);
