-- idempotent: the idempotency record table for H2 2.x.
-- One row per stored key. A row is live while expires_at is in the future (database time):
-- for IN_PROGRESS rows expires_at is the lease deadline, for COMPLETED rows the end of the TTL.
CREATE TABLE IF NOT EXISTS idempotency_record (
  idempotency_key VARCHAR(255) NOT NULL PRIMARY KEY,
  fingerprint     VARCHAR(255) NOT NULL,
  state           VARCHAR(16) NOT NULL,
  owner_token     VARCHAR(255),
  taken_over      BOOLEAN DEFAULT FALSE NOT NULL,
  lease_until     TIMESTAMP(6) WITH TIME ZONE,
  expires_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  outcome_kind    VARCHAR(8),
  result_json     CHARACTER LARGE OBJECT,
  failure_type    VARCHAR(1000),
  failure_message CHARACTER LARGE OBJECT,
  created_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
  completed_at    TIMESTAMP(6) WITH TIME ZONE
);
CREATE INDEX IF NOT EXISTS idempotency_record_expires_at_idx ON idempotency_record (expires_at);
