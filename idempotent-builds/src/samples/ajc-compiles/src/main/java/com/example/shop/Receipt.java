package com.example.shop;

/** What a charge returns: the recorded result. {@code run} says which run made it. */
public record Receipt(String orderId, long cents, int run) {}
