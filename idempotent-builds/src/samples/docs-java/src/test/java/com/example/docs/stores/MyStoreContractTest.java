package com.example.docs.stores;

import io.idempotent.spi.IdempotencyStore;
import io.idempotent.ManualTimeSource;
import io.idempotent.testkit.IdempotencyStoreContract;
import java.time.Duration;

// README snippet: stores-contract
