package io.idempotent.woven;

import io.idempotent.Idempotent;
import java.io.InputStream;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** Annotations whose arguments or key types cannot identify a call: each is refused before it runs. */
public class RefusedArguments {

  final AtomicInteger runs = new AtomicInteger();

  /** No toString of its own: its text is an identity hash. */
  public static class Request {
    private final String id;

    public Request(String id) {
      this.id = id;
    }

    public String getId() {
      return id;
    }
  }

  @Idempotent(key = "#key")
  public void spawn(String key, Thread worker) {
    runs.incrementAndGet();
  }

  @Idempotent(key = "#key")
  public void later(String key, Supplier<String> task) {
    runs.incrementAndGet();
  }

  /** Every value it may hold is a JDK object with no value rule. */
  @Idempotent(key = "#key")
  public void draw(String key, java.util.Random random) {
    runs.incrementAndGet();
  }

  @Idempotent(key = "#key")
  public void upload(String key, InputStream body) {
    runs.incrementAndGet();
  }

  @Idempotent(key = "#orderId", payload = {"#orderId", "#connection"})
  public void create(Connection connection, String orderId) {
    runs.incrementAndGet();
  }

  @Idempotent(key = "#req")
  public void submit(Request req) {
    runs.incrementAndGet();
  }

  @Idempotent(key = "'batch:' + #ids")
  public void batch(String[] ids) {
    runs.incrementAndGet();
  }

  @Idempotent(key = "#key", scope = "#tenant")
  public void scoped(String key, Request tenant) {
    runs.incrementAndGet();
  }
}
