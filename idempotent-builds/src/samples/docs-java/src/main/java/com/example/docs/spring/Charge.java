package com.example.docs.spring;

public record Charge(String orderId, Money amount) {}
