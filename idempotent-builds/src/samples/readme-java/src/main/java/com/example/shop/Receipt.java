package com.example.shop;

/** What a charge gives back. */
public record Receipt(String orderId, long cents, int charge) {}
