package io.idempotent.http;

import io.idempotent.OnInProgress;
import io.idempotent.runtime.Idempotency;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How {@link IdempotencyFilter} and {@link IdempotencyWebFilter} treat requests. Immutable; build with
 * {@link #builder()}.
 *
 * <p>Defaults: POST and PATCH on every path need a key; keys up to 255 characters, quoted or bare;
 * request bodies up to 1 MiB; responses recorded up to 1 MiB of body with {@code Content-Type},
 * {@code Content-Encoding}, {@code Content-Language}, {@code Location}, {@code ETag} and
 * {@code Last-Modified}; 2xx, 3xx and 4xx responses are recorded, 5xx release the key; a duplicate of a
 * request still running gets 409; the client is the authenticated principal (the servlet filter's
 * {@link #clientScope()}; the WebFlux filter takes its own resolver); the namespace is
 * {@code http}; TTL and lease are the engine's defaults; problem types are documented at
 * {@code https://github.com/idempotent-io/idempotent/blob/main/docs/PROBLEMS.md}.
 */
public final class HttpIdempotencySettings {

  /** The largest recorded body allowed: its JSON form must stay under the engine's 4 MiB result limit. */
  public static final int MAX_RECORDED_BODY_LIMIT = 3 * 1024 * 1024 - 64 * 1024;

  /**
   * Where the problem types are documented, one heading per code. Derived from the project's home (the root
   * POM's {@code project.home}): the two change together, and the file is not moved, since clients compare
   * types as identifiers.
   */
  private static final URI DEFAULT_PROBLEM_TYPES =
      URI.create("https://github.com/idempotent-io/idempotent/blob/main/docs/PROBLEMS.md#");

  /** Headers that are never recorded: cookies, framing, hop-by-hop, and the replay marker itself. */
  static final Set<String> NEVER_RECORDED = Set.of("set-cookie", "set-cookie2", "content-length",
      "transfer-encoding", "connection", "keep-alive", "upgrade", "trailer", "te", "proxy-authenticate",
      "idempotent-replayed");

  private final @Nullable Idempotency idempotency;
  private final String namespace;
  private final List<Route> routes;
  private final int maxKeyLength;
  private final boolean strictKeyHeader;
  private final int maxRequestBodyBytes;
  private final int maxRecordedBodyBytes;
  private final List<String> recordedHeaders;
  private final boolean recordServerErrors;
  private final OnInProgress onInProgress;
  private final @Nullable Duration waitTimeout;
  private final @Nullable Duration ttl;
  private final @Nullable Duration lease;
  private final String store;
  /** Null for the default, made when asked for: it names servlet types, which a WebFlux application may lack. */
  private final @Nullable ClientScopeResolver clientScope;
  private final URI problemTypes;

  private HttpIdempotencySettings(Builder b) {
    this.idempotency = b.idempotency;
    this.namespace = b.namespace;
    this.routes = b.routes.isEmpty()
        ? List.of(new Route(Set.of("POST", "PATCH"), PathPattern.of("/**"), KeyRequirement.REQUIRED))
        : List.copyOf(b.routes);
    this.maxKeyLength = b.maxKeyLength;
    this.strictKeyHeader = b.strictKeyHeader;
    this.maxRequestBodyBytes = b.maxRequestBodyBytes;
    this.maxRecordedBodyBytes = b.maxRecordedBodyBytes;
    this.recordedHeaders = List.copyOf(b.recordedHeaders);
    this.recordServerErrors = b.recordServerErrors;
    this.onInProgress = b.onInProgress;
    this.waitTimeout = b.waitTimeout;
    this.ttl = b.ttl;
    this.lease = b.lease;
    this.store = b.store;
    this.clientScope = b.clientScope;
    this.problemTypes = b.problemTypes;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The entry point calls go through, or null for {@link Idempotency#global()}. */
  public @Nullable Idempotency idempotency() {
    return idempotency;
  }

  public String namespace() {
    return namespace;
  }

  public List<Route> routes() {
    return routes;
  }

  /**
   * The first route that matches, or null when the filter lets the request pass untouched.
   *
   * @param path the path within the context as the container maps it: servlet path plus path info
   */
  public @Nullable Route routeFor(String method, String path) {
    for (Route r : routes) {
      if (r.matches(method, path)) {
        return r;
      }
    }
    return null;
  }

  /** Whether a route names {@code method}: a request with another method always passes untouched. */
  boolean routesMethod(String method) {
    for (Route r : routes) {
      if (r.methods().contains(method)) {
        return true;
      }
    }
    return false;
  }

  public int maxKeyLength() {
    return maxKeyLength;
  }

  public boolean strictKeyHeader() {
    return strictKeyHeader;
  }

  public int maxRequestBodyBytes() {
    return maxRequestBodyBytes;
  }

  public int maxRecordedBodyBytes() {
    return maxRecordedBodyBytes;
  }

  public List<String> recordedHeaders() {
    return recordedHeaders;
  }

  public boolean recordServerErrors() {
    return recordServerErrors;
  }

  public OnInProgress onInProgress() {
    return onInProgress;
  }

  public @Nullable Duration waitTimeout() {
    return waitTimeout;
  }

  public @Nullable Duration ttl() {
    return ttl;
  }

  public @Nullable Duration lease() {
    return lease;
  }

  public String store() {
    return store;
  }

  /** Who the client of a servlet request is (for {@link IdempotencyFilter}). */
  public ClientScopeResolver clientScope() {
    return clientScope != null ? clientScope : ClientScopeResolver.principal();
  }

  /** What the problem types of refusals begin with (never null); see {@link Builder#problemTypes(URI)}. */
  public URI problemTypes() {
    return problemTypes;
  }

  /** Collects settings; not thread-safe. */
  public static final class Builder {
    private @Nullable Idempotency idempotency;
    private String namespace = "http";
    private final List<Route> routes = new ArrayList<>();
    private int maxKeyLength = 255;
    private boolean strictKeyHeader;
    private int maxRequestBodyBytes = 1024 * 1024;
    private int maxRecordedBodyBytes = 1024 * 1024;
    private final LinkedHashSet<String> recordedHeaders = new LinkedHashSet<>(List.of(
        "Content-Type", "Content-Encoding", "Content-Language", "Location", "ETag", "Last-Modified"));
    private boolean recordServerErrors;
    private OnInProgress onInProgress = OnInProgress.THROW;
    private @Nullable Duration waitTimeout;
    private @Nullable Duration ttl;
    private @Nullable Duration lease;
    private String store = "";
    private @Nullable ClientScopeResolver clientScope;
    private URI problemTypes = DEFAULT_PROBLEM_TYPES;

    private Builder() {}

    /** The entry point to run calls through (default: {@link Idempotency#global()}). */
    public Builder idempotency(Idempotency idempotency) {
      this.idempotency = Objects.requireNonNull(idempotency, "idempotency");
      return this;
    }

    /** The namespace keys are stored under; every route of one filter shares it. */
    public Builder namespace(String namespace) {
      if (namespace == null || namespace.isBlank()) {
        throw new IllegalArgumentException("namespace must not be blank");
      }
      this.namespace = namespace;
      return this;
    }

    /**
     * Protects requests with one of {@code methods} whose path matches {@code pathPattern} (see {@link
     * PathPattern}). Routes are tried in the order they were added; the first that matches decides. Once
     * a route is added, the default (POST and PATCH everywhere, key required) no longer applies.
     */
    public Builder route(KeyRequirement requirement, String pathPattern, String... methods) {
      routes.add(new Route(Set.of(methods), PathPattern.of(pathPattern), requirement));
      return this;
    }

    public Builder maxKeyLength(int characters) {
      if (characters < 1 || characters > 8192) {
        throw new IllegalArgumentException("maxKeyLength must be between 1 and 8192, was " + characters);
      }
      this.maxKeyLength = characters;
      return this;
    }

    /** Accept only the quoted sf-string form of the header, refusing bare keys (default: both). */
    public Builder strictKeyHeader(boolean strict) {
      this.strictKeyHeader = strict;
      return this;
    }

    /** The largest request body read and fingerprinted; a larger one is refused with 413. */
    public Builder maxRequestBodyBytes(int bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("maxRequestBodyBytes must not be negative, was " + bytes);
      }
      this.maxRequestBodyBytes = bytes;
      return this;
    }

    /**
     * The largest response body recorded; a larger (or streamed) response is sent as it is written and
     * not recorded, so its key is released and a retry runs again. At most {@value #MAX_RECORDED_BODY_LIMIT}.
     */
    public Builder maxRecordedBodyBytes(int bytes) {
      if (bytes < 0 || bytes > MAX_RECORDED_BODY_LIMIT) {
        throw new IllegalArgumentException("maxRecordedBodyBytes must be between 0 and " + MAX_RECORDED_BODY_LIMIT
            + ", was " + bytes);
      }
      this.maxRecordedBodyBytes = bytes;
      return this;
    }

    /** Records (and replays) these response headers too. {@code Set-Cookie} and framing headers are refused. */
    public Builder recordHeaders(String... names) {
      for (String name : names) {
        String lower = name.trim().toLowerCase(Locale.ROOT);
        if (lower.isEmpty() || NEVER_RECORDED.contains(lower)) {
          throw new IllegalArgumentException("The header '" + name + "' is never recorded for replay");
        }
        recordedHeaders.add(name.trim());
      }
      return this;
    }

    /** Records 5xx responses as well, instead of releasing the key so that a retry runs again. */
    public Builder recordServerErrors(boolean record) {
      this.recordServerErrors = record;
      return this;
    }

    /** {@link OnInProgress#THROW} (409, the default) or {@link OnInProgress#WAIT} for the first request's answer. */
    public Builder onInProgress(OnInProgress policy) {
      if (policy == OnInProgress.SKIP) {
        throw new IllegalArgumentException("An HTTP request cannot be skipped: use THROW (409) or WAIT");
      }
      this.onInProgress = Objects.requireNonNull(policy, "policy");
      return this;
    }

    public Builder waitTimeout(Duration timeout) {
      this.waitTimeout = timeout;
      return this;
    }

    /** How long a recorded response is replayed (default: the engine's). */
    public Builder ttl(Duration ttl) {
      this.ttl = ttl;
      return this;
    }

    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    /** A named store from the configuration (default: the default store). */
    public Builder store(String storeName) {
      this.store = Objects.requireNonNull(storeName, "storeName");
      return this;
    }

    /**
     * Who the client of a servlet request is (default: {@link ClientScopeResolver#principal()}). The WebFlux
     * filter takes an {@link ExchangeClientScopeResolver} of its own instead.
     */
    public Builder clientScope(ClientScopeResolver resolver) {
      this.clientScope = Objects.requireNonNull(resolver, "resolver");
      return this;
    }

    /**
     * What the type URIs of the filter's problem responses begin with; the code follows, so
     * {@code https://api.example.com/problems/} gives {@code https://api.example.com/problems/idempotency-key-missing}.
     * The type is also linked as the problem's documentation ({@code Link: <type>; rel="describedby"}), so
     * an API that documents the problems itself names its pages here. Default: the project's
     * {@code docs/PROBLEMS.md}, a heading per code.
     *
     * @param base an absolute URI ending in {@code /} or {@code #}; not null
     */
    public Builder problemTypes(URI base) {
      Objects.requireNonNull(base, "base");
      String text = base.toString();
      if (!base.isAbsolute() || !(text.endsWith("/") || text.endsWith("#"))) {
        throw new IllegalArgumentException("problemTypes must be an absolute URI ending in '/' or '#', was " + base);
      }
      this.problemTypes = base;
      return this;
    }

    public HttpIdempotencySettings build() {
      return new HttpIdempotencySettings(this);
    }
  }
}
