package io.idempotent.spring;

import io.idempotent.runtime.Idempotency;
import org.springframework.beans.factory.DisposableBean;

/** The entry point of the installed configuration, for programmatic calls. */
public final class InstalledIdempotency implements DisposableBean {
  private final Idempotency idempotency;

  InstalledIdempotency(Idempotency idempotency) {
    this.idempotency = idempotency;
  }

  public Idempotency idempotency() {
    return idempotency;
  }

  @Override
  public void destroy() {
    idempotency.uninstallIfInstalled(); // another context may have installed its own since
  }
}
