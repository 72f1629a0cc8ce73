package io.idempotent.http;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The request as the application sees it behind the filter: its body, already read (and fingerprinted)
 * by the filter, is read again from memory through {@link #getInputStream()} or {@link #getReader()}.
 * Form parameters of a {@code application/x-www-form-urlencoded} body are parsed from the same bytes.
 * Not thread-safe, as a request is not.
 */
final class BufferedBodyRequest extends HttpServletRequestWrapper {

  private final byte[] body;
  private boolean streamTaken;
  private boolean readerTaken;
  private @Nullable Map<String, String[]> parameters;

  BufferedBodyRequest(HttpServletRequest request, byte[] body) {
    super(request);
    this.body = body;
  }

  /** Reads at most {@code limit + 1} bytes of {@code in}: one more than allowed tells that the body is too large. */
  static byte[] readUpTo(InputStream in, int limit) throws IOException {
    return in.readNBytes(limit == Integer.MAX_VALUE ? limit : limit + 1);
  }

  @Override
  public ServletInputStream getInputStream() {
    if (readerTaken) {
      throw new IllegalStateException("getReader() was already called for this request");
    }
    streamTaken = true;
    return new BytesInputStream(body);
  }

  @Override
  public BufferedReader getReader() {
    if (streamTaken) {
      throw new IllegalStateException("getInputStream() was already called for this request");
    }
    readerTaken = true;
    return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), charset()));
  }

  @Override
  public int getContentLength() {
    return body.length;
  }

  @Override
  public long getContentLengthLong() {
    return body.length;
  }

  @Override
  public @Nullable String getParameter(String name) {
    String[] values = parameters().get(name);
    return values == null ? null : values[0];
  }

  @Override
  public Map<String, String[]> getParameterMap() {
    return Collections.unmodifiableMap(parameters());
  }

  @Override
  public Enumeration<String> getParameterNames() {
    return Collections.enumeration(parameters().keySet());
  }

  @Override
  public String @Nullable [] getParameterValues(String name) {
    String[] values = parameters().get(name);
    return values == null ? null : values.clone();
  }

  private Map<String, String[]> parameters() {
    if (parameters == null) {
      Map<String, List<String>> collected = new LinkedHashMap<>();
      // the query's parameters come from the container, which has not read the body
      for (Map.Entry<String, String[]> e : queryParameters().entrySet()) {
        collected.computeIfAbsent(e.getKey(), k -> new java.util.ArrayList<>()).addAll(List.of(e.getValue()));
      }
      String type = getContentType();
      if (type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
        FormDecoding.decode(new String(body, StandardCharsets.ISO_8859_1), charset(), collected);
      }
      Map<String, String[]> result = new LinkedHashMap<>();
      collected.forEach((k, v) -> result.put(k, v.toArray(String[]::new)));
      parameters = result;
    }
    return parameters;
  }

  private Map<String, String[]> queryParameters() {
    Map<String, List<String>> collected = new LinkedHashMap<>();
    String query = getQueryString();
    if (query != null) {
      FormDecoding.decode(query, StandardCharsets.UTF_8, collected);
    }
    Map<String, String[]> result = new LinkedHashMap<>();
    collected.forEach((k, v) -> result.put(k, v.toArray(String[]::new)));
    return result;
  }

  private Charset charset() {
    String encoding = getCharacterEncoding();
    try {
      return encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
    } catch (IllegalArgumentException e) {
      return StandardCharsets.UTF_8;
    }
  }

  /** A body read from memory; always ready, so non-blocking readers work too. */
  private static final class BytesInputStream extends ServletInputStream {
    private final ByteArrayInputStream in;

    BytesInputStream(byte[] body) {
      this.in = new ByteArrayInputStream(body);
    }

    @Override
    public int read() {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      return in.read(b, off, len);
    }

    @Override
    public boolean isFinished() {
      return in.available() == 0;
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setReadListener(ReadListener listener) {
      try {
        listener.onDataAvailable();
        listener.onAllDataRead();
      } catch (IOException e) {
        listener.onError(e);
      }
    }
  }
}
