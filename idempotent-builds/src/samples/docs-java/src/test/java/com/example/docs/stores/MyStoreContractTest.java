package com.example.docs.stores;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.testkit.FakeTicker;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;

// README snippet: stores-contract
