-- idempotent: the idempotency record table for MySQL 8.0 or later.
-- One row per stored key. A row is live while expires_at is in the future (UTC, database time):
-- for IN_PROGRESS rows expires_at is the lease deadline, for COMPLETED rows the end of the TTL.
-- The key collation is binary and NO PAD: the default collations ignore case and trailing spaces,
-- and even utf8mb4_bin ignores trailing spaces, which would merge distinct keys.
CREATE TABLE IF NOT EXISTS idempotency_record (
  idempotency_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
  fingerprint     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NOT NULL,
  state           VARCHAR(16) CHARACTER SET ascii NOT NULL,
  owner_token     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NULL,
  taken_over      BOOLEAN NOT NULL DEFAULT FALSE,
  lease_until     DATETIME(6) NULL,
  expires_at      DATETIME(6) NOT NULL,
  outcome_kind    VARCHAR(8) CHARACTER SET ascii NULL,
  result_json     LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  failure_type    VARCHAR(1000) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  failure_message TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
  created_at      DATETIME(6) NOT NULL,
  completed_at    DATETIME(6) NULL,
  PRIMARY KEY (idempotency_key),
  INDEX idempotency_record_expires_at_idx (expires_at)
) ENGINE = InnoDB;
