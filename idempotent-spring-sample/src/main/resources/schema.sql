CREATE TABLE IF NOT EXISTS shop_order (
  order_id VARCHAR(64) PRIMARY KEY,
  item VARCHAR(200) NOT NULL,
  quantity INT NOT NULL,
  placed_at TIMESTAMP NOT NULL,
  settled_in VARCHAR(40)
);

CREATE TABLE IF NOT EXISTS shop_stock (
  item VARCHAR(200) PRIMARY KEY,
  available INT NOT NULL
);

-- one row per settlement that ran; deliberately without a unique constraint on period, so that a period
-- settled twice would show as two rows rather than as a failed insert
CREATE TABLE IF NOT EXISTS settlement_run (
  period VARCHAR(40) NOT NULL,
  instance VARCHAR(100) NOT NULL,
  orders_settled INT NOT NULL
);

-- one row per trigger of the job on each instance, with what the idempotent call did
CREATE TABLE IF NOT EXISTS settlement_attempt (
  period VARCHAR(40) NOT NULL,
  instance VARCHAR(100) NOT NULL,
  outcome VARCHAR(20) NOT NULL
);

-- one row per order shipped by Shipments.ship (the orders queue's listener); deliberately without a unique
-- constraint on order_id, so that an order shipped twice would show as two rows
CREATE TABLE IF NOT EXISTS shipment (
  order_id VARCHAR(64) NOT NULL,
  item VARCHAR(200) NOT NULL,
  quantity INT NOT NULL,
  consumer VARCHAR(100) NOT NULL
);

-- one row per delivery the orders queue's listener handled: how the idempotent call ended (EXECUTED,
-- REPLAYED, REFUSED) and how the delivery was settled (ACK, REJECT, REQUEUE)
CREATE TABLE IF NOT EXISTS order_delivery (
  order_id VARCHAR(64) NOT NULL,
  outcome VARCHAR(20) NOT NULL,
  settlement VARCHAR(10) NOT NULL
);
