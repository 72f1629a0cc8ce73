package io.idempotent.http;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Sends a request that changes something, retrying it safely: one {@code Idempotency-Key} per logical
 * operation, generated once and sent on every attempt, so the server does the operation at most once and
 * answers a retry with its recorded response. Retries connection failures, timeouts and other I/O errors,
 * 409 (the first attempt still in progress) and 5xx; never another 4xx. Waits with exponential backoff and
 * full jitter, bounded by attempts and a deadline ({@link RetryPolicy}). Time, sleeping and randomness are
 * injected, so tests need no wall clock. Thread-safe if its collaborators are.
 *
 * <pre>{@code
 * RetryingHttpClient client = RetryingHttpClient.builder(HttpClient.newHttpClient()).build();
 * RetriedResponse<String> r = client.send(
 *     HttpRequest.newBuilder(uri).POST(BodyPublishers.ofString(json)).header("Content-Type", "application/json").build(),
 *     BodyHandlers.ofString());
 * r.attempts(); r.replayed();
 * }</pre>
 */
public final class RetryingHttpClient {

  /** Waits; {@link Thread#sleep} unless a test says otherwise. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  /** Sends one attempt; {@link HttpClient#send} unless a test says otherwise. */
  @FunctionalInterface
  public interface Transport {
    <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
        throws IOException, InterruptedException;
  }

  private final Transport transport;
  private final RetryPolicy policy;
  private final Clock clock;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  private final Supplier<String> keys;

  private RetryingHttpClient(Builder b) {
    this.transport = b.transport;
    this.policy = b.policy;
    this.clock = b.clock;
    this.sleeper = b.sleeper;
    this.random = b.random;
    this.keys = b.keys;
  }

  public static Builder builder(HttpClient client) {
    Objects.requireNonNull(client, "client");
    return new Builder(new Transport() {
      @Override
      public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
          throws IOException, InterruptedException {
        return client.send(request, handler);
      }
    });
  }

  public static Builder builder(Transport transport) {
    return new Builder(Objects.requireNonNull(transport, "transport"));
  }

  /**
   * Sends {@code request} until it gets an answer worth returning. The key is the request's own {@code
   * Idempotency-Key} if it has one (unquoted), otherwise a new random UUID.
   *
   * @throws RetriesExhaustedException when no attempt got an answer
   * @throws InterruptedException when interrupted while sending or waiting; nothing more is sent
   */
  public <T> RetriedResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    String key = existingKey(request).orElseGet(keys);
    return send(request, handler, key);
  }

  /** As {@link #send(HttpRequest, HttpResponse.BodyHandler)} with the operation's key given. */
  public <T> RetriedResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, String key)
      throws IOException, InterruptedException {
    String headerValue = IdempotencyKeyHeader.format(key);
    Instant start = clock.instant();
    Instant deadline = start.plus(policy.deadline());
    List<IOException> failures = new ArrayList<>();
    int attempt = 0;
    while (true) {
      attempt++;
      Duration left = Duration.between(clock.instant(), deadline);
      HttpRequest.Builder b = HttpRequest.newBuilder(request, (name, value) -> !name.equalsIgnoreCase(IdempotencyKeyHeader.NAME))
          .header(IdempotencyKeyHeader.NAME, headerValue);
      Optional<Duration> own = request.timeout();
      b.timeout(own.isPresent() && own.get().compareTo(left) < 0 ? own.get() : positive(left));
      HttpResponse<T> response = null;
      try {
        response = transport.send(b.build(), handler);
      } catch (IOException e) {
        failures.add(e);
      }
      if (response != null && !RetryPolicy.retryable(response.statusCode())) {
        return result(response, attempt, key);
      }
      Duration wait = backoff(attempt, response);
      boolean timeLeft = clock.instant().plus(wait).isBefore(deadline);
      if (attempt >= policy.maxAttempts() || !timeLeft) {
        if (response != null) {
          return result(response, attempt, key);
        }
        IOException last = failures.remove(failures.size() - 1);
        RetriesExhaustedException ex = new RetriesExhaustedException("No answer after " + attempt + " attempt"
            + (attempt == 1 ? "" : "s") + " (" + (attempt >= policy.maxAttempts() ? "attempts" : "time")
            + " ran out); the last failure: " + last, attempt, key, last);
        failures.forEach(ex::addSuppressed);
        throw ex;
      }
      sleeper.sleep(wait);
    }
  }

  private Duration backoff(int failures, @Nullable HttpResponse<?> response) {
    Duration bound = policy.backoffBound(failures);
    Duration wait = Duration.ofNanos((long) (random.nextDouble() * bound.toNanos()));
    if (response != null) {
      Optional<String> retryAfter = response.headers().firstValue("Retry-After");
      if (retryAfter.isPresent() && retryAfter.get().trim().matches("\\d{1,6}")) {
        Duration asked = Duration.ofSeconds(Long.parseLong(retryAfter.get().trim()));
        Duration capped = asked.compareTo(policy.maxBackoff()) > 0 ? policy.maxBackoff() : asked;
        wait = capped.compareTo(wait) > 0 ? capped : wait;
      }
    }
    return wait;
  }

  private static <T> RetriedResponse<T> result(HttpResponse<T> response, int attempts, String key) {
    boolean replayed = response.headers().firstValue(IdempotencyFilter.REPLAYED_HEADER)
        .map(v -> v.trim().equalsIgnoreCase("true")).orElse(false);
    return new RetriedResponse<>(response, attempts, replayed, key);
  }

  private static Duration positive(Duration d) {
    return d.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : d;
  }

  private static Optional<String> existingKey(HttpRequest request) {
    return request.headers().firstValue(IdempotencyKeyHeader.NAME).map(v -> {
      IdempotencyKeyHeader.Parsed p = new IdempotencyKeyHeader(8192, false).parse(v);
      if (p instanceof IdempotencyKeyHeader.Parsed.Key k) {
        return k.value();
      }
      throw new IllegalArgumentException("The request's Idempotency-Key header is malformed: "
          + ((IdempotencyKeyHeader.Parsed.Malformed) p).problem());
    });
  }

  /** Collects the client's collaborators; not thread-safe. */
  public static final class Builder {
    private final Transport transport;
    private RetryPolicy policy = RetryPolicy.DEFAULT;
    private Clock clock = Clock.systemUTC();
    private Sleeper sleeper = d -> Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
    private RandomGenerator random = RandomGenerator.getDefault();
    private Supplier<String> keys = () -> UUID.randomUUID().toString();

    private Builder(Transport transport) {
      this.transport = transport;
    }

    public Builder policy(RetryPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** The clock the deadline is measured on. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /** The source of jitter. */
    public Builder random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random, "random");
      return this;
    }

    /** Where a new operation's key comes from (default: a random UUID). */
    public Builder keys(Supplier<String> keys) {
      this.keys = Objects.requireNonNull(keys, "keys");
      return this;
    }

    public RetryingHttpClient build() {
      return new RetryingHttpClient(this);
    }
  }
}
