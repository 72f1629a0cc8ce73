package io.idempotent.spi;

/**
 * Creates a store from settings; registered through {@link java.util.ServiceLoader} so that putting a
 * store module on the class path and naming it ({@code idempotent.store=jdbi}) is enough.
 */
public interface IdempotencyStoreProvider {

  /** The name by which the store is chosen, e.g. {@code caffeine}, {@code jdbi}. */
  String name();

  /**
   * Which provider wins when none is named: the highest priority. Durable stores rank above in-memory
   * ones; a negative priority means the store is used only when named.
   */
  default int priority() {
    return 0;
  }

  /** Creates the store. Settings are those under {@code idempotent.<name>.}. */
  IdempotencyStore create(StoreSettings settings);
}
