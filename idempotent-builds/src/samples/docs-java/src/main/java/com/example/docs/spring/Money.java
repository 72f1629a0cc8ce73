package com.example.docs.spring;

public record Money(long cents, String currency) {}
