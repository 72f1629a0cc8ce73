package io.idempotent.assemblies;

import io.idempotent.Effects;
import io.idempotent.Idempotent;

/**
 * The woven business methods: one per declaration of effects, each idempotent on its key, and the outer
 * ones of a nested pair, which call the inner method of the same declaration first (so that an inner failure
 * comes before the outer effect) and then pay themselves. Called directly, behind the filter, and by the
 * Spring service, which extends it.
 */
public class Payments {

  /** Pays for {@code key} through the method declared {@code effects}; {@code nested}: through an outer call. */
  public Payment pay(Effects effects, boolean nested, String key) {
    if (nested) {
      return switch (effects) {
        case UNDECLARED -> outerUndeclared(key);
        case TRANSACTIONAL -> outerTransactional(key);
        case EXTERNAL -> outerExternal(key);
      };
    }
    return switch (effects) {
      case UNDECLARED -> undeclared(key);
      case TRANSACTIONAL -> transactional(key);
      case EXTERNAL -> external(key);
    };
  }

  @Idempotent(key = "#key")
  private Payment undeclared(String key) {
    return Business.pay(key, Effects.UNDECLARED);
  }

  @Idempotent(key = "#key", effects = Effects.TRANSACTIONAL)
  private Payment transactional(String key) {
    return Business.pay(key, Effects.TRANSACTIONAL);
  }

  @Idempotent(key = "#key", effects = Effects.EXTERNAL)
  private Payment external(String key) {
    return Business.pay(key, Effects.EXTERNAL);
  }

  @Idempotent(key = "#key")
  private Payment outerUndeclared(String key) {
    undeclared(CellRun.innerKey(key));
    return Business.pay(key, Effects.UNDECLARED);
  }

  @Idempotent(key = "#key", effects = Effects.TRANSACTIONAL)
  private Payment outerTransactional(String key) {
    transactional(CellRun.innerKey(key));
    return Business.pay(key, Effects.TRANSACTIONAL);
  }

  @Idempotent(key = "#key", effects = Effects.EXTERNAL)
  private Payment outerExternal(String key) {
    external(CellRun.innerKey(key));
    return Business.pay(key, Effects.EXTERNAL);
  }
}
