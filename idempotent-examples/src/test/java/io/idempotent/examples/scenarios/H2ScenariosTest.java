package io.idempotent.examples.scenarios;

import io.idempotent.examples.TestDatabases;
import java.util.Map;

/** The scenarios on the embedded database the demo uses by default (here a fresh in-memory one). */
class H2ScenariosTest extends ScenarioTestBase {

  @Override
  Map<String, String> database() {
    return TestDatabases.freshH2();
  }
}
