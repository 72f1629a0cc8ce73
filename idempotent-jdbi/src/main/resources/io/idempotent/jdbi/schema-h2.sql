-- idempotent: the idempotency record table for H2 2.x.
-- One row per stored key. A row is live while expires_at is in the future (database time):
-- for IN_PROGRESS rows expires_at is the lease deadline, for COMPLETED rows the end of the TTL.
-- purge_after says when the purge may delete the row; it is never before expires_at. The claim sets it
-- and the completion usually leaves it alone, so a completion changes no indexed column.
CREATE TABLE IF NOT EXISTS idempotency_record (
  idempotency_key VARCHAR(255) NOT NULL PRIMARY KEY,
  fingerprint     VARCHAR(255) NOT NULL,
  state           VARCHAR(16) NOT NULL,
  owner_token     VARCHAR(255),
  taken_over      BOOLEAN DEFAULT FALSE NOT NULL,
  expires_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  purge_after     TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  outcome_kind    VARCHAR(8),
  result_json     CHARACTER LARGE OBJECT,
  failure_type    VARCHAR(1000),
  failure_message CHARACTER LARGE OBJECT
);
CREATE INDEX IF NOT EXISTS idempotency_record_purge_idx ON idempotency_record (purge_after);
