INSERT INTO shop_stock (item, available) SELECT 'coffee', 100 WHERE NOT EXISTS (SELECT 1 FROM shop_stock WHERE item = 'coffee');
INSERT INTO shop_stock (item, available) SELECT 'tea', 3 WHERE NOT EXISTS (SELECT 1 FROM shop_stock WHERE item = 'tea');
