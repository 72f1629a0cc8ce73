\set k random(1, 9000000000000000)
BEGIN;
SELECT COUNT(*) FROM pgb_camel WHERE processorName = 'bench.charge' AND messageId = 'o-' || CAST(:k AS text) || '-' || CAST(:client_id AS text);
INSERT INTO pgb_camel (processorName, messageId, createdAt) VALUES ('bench.charge', 'o-' || CAST(:k AS text) || '-' || CAST(:client_id AS text), now());
COMMIT;
