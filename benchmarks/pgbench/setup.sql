DROP TABLE IF EXISTS pgb_ours, pgb_floor, pgb_camel;
CREATE TABLE pgb_ours (
  idempotency_key text COLLATE "C" NOT NULL PRIMARY KEY, fingerprint text NOT NULL, state varchar(16) NOT NULL,
  owner_token text, taken_over boolean NOT NULL DEFAULT FALSE, expires_at timestamptz NOT NULL,
  purge_after timestamptz NOT NULL, outcome_kind varchar(8), result_json text, failure_type text, failure_message text
) WITH (fillfactor = 70);
CREATE INDEX pgb_ours_purge_idx ON pgb_ours (purge_after);
CREATE TABLE pgb_floor (k VARCHAR(255) NOT NULL PRIMARY KEY, fingerprint VARCHAR(64) NOT NULL,
  status VARCHAR(16) NOT NULL, owner VARCHAR(64), lease_until TIMESTAMP WITH TIME ZONE,
  expires_at TIMESTAMP WITH TIME ZONE NOT NULL, result TEXT);
CREATE TABLE pgb_camel (processorName VARCHAR(255) NOT NULL, messageId VARCHAR(255) NOT NULL, createdAt TIMESTAMP, PRIMARY KEY (processorName, messageId));
DROP TABLE IF EXISTS pgb_old;
CREATE TABLE pgb_old (
  idempotency_key text COLLATE "C" NOT NULL PRIMARY KEY, fingerprint text NOT NULL, state varchar(16) NOT NULL,
  owner_token text, taken_over boolean NOT NULL DEFAULT FALSE, lease_until timestamptz, expires_at timestamptz NOT NULL,
  outcome_kind varchar(8), result_json text, failure_type text, failure_message text, created_at timestamptz NOT NULL,
  completed_at timestamptz);
CREATE INDEX pgb_old_expires_at_idx ON pgb_old (expires_at);
