package io.idempotent.assemblies;

import io.idempotent.Effects;
import java.util.List;

/**
 * One combination the suite walks; named so that a failure reads as a sentence ("filter × JOINED × EXTERNAL ×
 * Spring transaction × SERIALIZABLE × PostgreSQL × rollback-after-return").
 */
record Cell(EntryPoint entryPoint, Mode mode, Effects effects, CallerContext context, ServerSetting setting,
    Database database, Event event) {

  /** The cells that share pools, stores and contexts. */
  record Group(Database database, Mode mode, ServerSetting setting) {}

  Group group() {
    return new Group(database, mode, setting);
  }

  /** Whether the combination can be set up: a setting the database has; a slow method only without a transaction. */
  boolean applicable() {
    return setting.appliesTo(database) && (!setting.slow() || context == CallerContext.NONE);
  }

  /** The values, one per dimension, for the pairwise cover. */
  List<Object> values() {
    return List.of(entryPoint, mode, effects, context, setting, database, event);
  }

  @Override
  public String toString() {
    return String.join(" × ", entryPoint.label, mode.name(), effects.name(), context.label, setting.label,
        database.label, event.label);
  }
}
