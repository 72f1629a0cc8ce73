package io.idempotent.http;

/** A servlet container started for a test, listening on 127.0.0.1. */
interface ServletServer extends AutoCloseable {

  int port();

  /** Stops the container; nothing checked is thrown, so tests close it in try-with-resources. */
  @Override
  void close();
}
