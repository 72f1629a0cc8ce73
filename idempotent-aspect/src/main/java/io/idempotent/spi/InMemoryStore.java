package io.idempotent.spi;

/**
 * Marks an {@link IdempotencyStore} that keeps its records in this process's own memory, each operation
 * taking well under a microsecond (the Caffeine store). Instrumentation that would add work to every
 * operation, such as timing it, may leave such a store out: reading a clock twice costs about as much as
 * the operation. Stores that leave the process (SQL, Redis) do not carry it.
 */
public interface InMemoryStore {}
