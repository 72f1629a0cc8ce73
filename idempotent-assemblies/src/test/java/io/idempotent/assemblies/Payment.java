package io.idempotent.assemblies;

/** What the business method returns: the key it paid for and which run of the method paid. */
public record Payment(String key, int run) {}
