package io.idempotent.examples.shop;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A fake mail server: counts the emails it sends, in total and per recipient. Thread-safe. */
public final class Mailer {

  private final AtomicInteger sent = new AtomicInteger();
  private final Map<String, AtomicInteger> byRecipient = new ConcurrentHashMap<>();

  public void send(String to, String subject) {
    sent.incrementAndGet();
    byRecipient.computeIfAbsent(to, k -> new AtomicInteger()).incrementAndGet();
  }

  public int sent() {
    return sent.get();
  }

  /** How many emails {@code to} received. */
  public int sentTo(String to) {
    AtomicInteger n = byRecipient.get(to);
    return n == null ? 0 : n.get();
  }
}
