package com.example.shop;

/** An amount in a currency's smallest unit. */
public record Money(long cents, String currency) {}
