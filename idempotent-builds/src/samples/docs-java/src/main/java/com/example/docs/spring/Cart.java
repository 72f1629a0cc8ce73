package com.example.docs.spring;

public record Cart(String sku, Money total) {}
