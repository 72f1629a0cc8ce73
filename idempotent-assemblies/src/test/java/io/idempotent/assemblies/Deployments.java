package io.idempotent.assemblies;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The deployments open now. Those on H2 (in memory, cheap) stay open until the suite ends, so that each
 * opens once whatever the order of the entry points; of the servers' at most one is open at a time, to keep
 * well within their connection limits.
 */
final class Deployments {

  private static final Map<Cell.Group, Deployment> OPEN = new LinkedHashMap<>();

  private Deployments() {}

  static synchronized Deployment of(Cell.Group group) {
    Deployment d = OPEN.get(group);
    if (d != null) {
      return d;
    }
    if (group.database().isServer()) {
      closeWhere(g -> g.database().isServer());
    }
    d = Deployment.open(group);
    OPEN.put(group, d);
    return d;
  }

  /** Closes the deployment of {@code group}, if open; the next cell of the group opens a new one. */
  static synchronized void discard(Cell.Group group) {
    closeWhere(group::equals);
  }

  static synchronized void closeAll() {
    closeWhere(g -> true);
  }

  private static void closeWhere(java.util.function.Predicate<Cell.Group> which) {
    List<Cell.Group> closing = new ArrayList<>();
    OPEN.keySet().stream().filter(which).forEach(closing::add);
    RuntimeException failed = null;
    for (Cell.Group g : closing) {
      try {
        OPEN.remove(g).close();
      } catch (RuntimeException e) {
        failed = e;
      }
    }
    if (failed != null) {
      throw failed;
    }
  }
}
