package io.idempotent.examples.scenarios;

import io.idempotent.examples.DemoEnvironment;

/**
 * One story the demo tells: a way a method gets called more than once, and what the library makes of
 * it. A scenario builds its own services and fake external systems, so its counts are its own; its
 * keys differ from every other scenario's. Run each instance once.
 */
public interface Scenario {

  /** Short id shown in the table ({@code "1"}, {@code "4a"}). */
  String id();

  /** What happens, in a few words. */
  String title();

  /** Plays the scenario against the environment's store and counts what happened. */
  ScenarioResult run(DemoEnvironment env) throws Exception;
}
