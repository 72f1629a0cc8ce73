package com.example.docs.messaging.amqp;

/** The JSON body of an order message. */
public record OrderPlaced(String orderId, String item, int quantity) {}
