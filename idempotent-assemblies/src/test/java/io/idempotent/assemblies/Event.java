package io.idempotent.assemblies;

/** What happens in the call, and what the callers do about it. */
enum Event {
  /** The call returns; a retry follows. */
  NONE("no event"),
  /** The method throws an exception that is not final on its first run; the caller retries. */
  THROWS("method throws"),
  /** The call returns, then the caller fails and its transaction rolls back; the caller retries. */
  ROLLBACK_AFTER_RETURN("rollback-after-return"),
  /** Several callers with the same key at once, each retrying until it has an answer. */
  CONCURRENT_DUPLICATES("concurrent duplicates");

  final String label;

  Event(String label) {
    this.label = label;
  }
}
