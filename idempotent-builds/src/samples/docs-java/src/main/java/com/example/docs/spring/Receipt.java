package com.example.docs.spring;

public record Receipt(String orderId, String sku) {}
