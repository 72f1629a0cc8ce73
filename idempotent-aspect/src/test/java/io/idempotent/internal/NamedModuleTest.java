package io.idempotent.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.runtime.Idempotency;
import io.idempotent.spi.IdempotencyStoreProvider;
import org.junit.jupiter.api.Test;

/**
 * These tests run inside the named module {@code io.idempotent} (Surefire patches them into it), so its
 * descriptor is in force: what it reads, uses and provides. What it exports is checked against the
 * built jar in idempotent-architecture ({@code ApiBoundaryTest}).
 */
class NamedModuleTest {

  @Test
  void library_runsAsTheNamedModule() {
    assertThat(Idempotency.class.getModule().getName()).isEqualTo("io.idempotent");
    assertThat(Idempotency.class.getModule().getDescriptor().isAutomatic()).isFalse();
  }

  @Test
  void storeProviders_ofTheModule_areFoundThroughItsDescriptor() {
    // a named module's META-INF/services is not read: only its "provides" makes the layered store known
    assertThat(StoreProviders.providers(getClass().getClassLoader()))
        .extracting(IdempotencyStoreProvider::name).contains("layered");
  }
}
