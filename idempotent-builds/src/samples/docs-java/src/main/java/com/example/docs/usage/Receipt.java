package com.example.docs.usage;

public record Receipt(String orderId, long cents, Money fee) {}
