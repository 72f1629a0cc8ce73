package io.idempotent.http;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Requests the filter protects: methods (upper case) and a path pattern, and whether the key is required.
 * Immutable.
 */
public record Route(Set<String> methods, PathPattern path, KeyRequirement requirement) {

  public Route {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(requirement, "requirement");
    TreeSet<String> upper = new TreeSet<>();
    for (String m : methods) {
      upper.add(m.trim().toUpperCase(Locale.ROOT));
    }
    if (upper.isEmpty()) {
      throw new IllegalArgumentException("A route names at least one method");
    }
    methods = Set.copyOf(upper);
  }

  /**
   * Whether a request with this method and path is one of this route's.
   *
   * @param method the request's method, as sent (methods are case-sensitive)
   * @param requestPath the path within the context as the container mapped it: servlet path plus path info
   */
  public boolean matches(String method, String requestPath) {
    return methods.contains(method) && path.matches(requestPath);
  }
}
