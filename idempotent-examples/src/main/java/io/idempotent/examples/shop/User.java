package io.idempotent.examples.shop;

/** A signed-in customer. Immutable. */
public record User(String id) {}
