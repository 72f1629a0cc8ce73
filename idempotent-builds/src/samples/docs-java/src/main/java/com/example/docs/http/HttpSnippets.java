package com.example.docs.http;

import io.idempotent.runtime.Idempotency;
import io.idempotent.http.ClientScopeResolver;
import io.idempotent.http.HttpIdempotencySettings;
import io.idempotent.http.IdempotencyFilter;
import io.idempotent.http.KeyRequirement;
import io.idempotent.http.RetriedResponse;
import io.idempotent.http.RetryPolicy;
import io.idempotent.http.RetryingHttpClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;

/** docs/HTTP.md's code: the filter with its routes, and an order posted by the retrying client. */
public final class HttpSnippets {

  private HttpSnippets() {}

  public static IdempotencyFilter filter() {
    // README snippet: http-filter
    return filter;
  }

  public static RetriedResponse<String> post(URI uri, String order) throws IOException, InterruptedException {
    // README snippet: http-client
    return r;
  }
}
