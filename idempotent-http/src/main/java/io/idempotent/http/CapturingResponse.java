package io.idempotent.http;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The response as the application writes it behind the filter. Status and headers go to the real
 * response as they are set; the body is held in memory, so that it can be recorded whole and sent
 * only once the outcome is known (a handler that fails half-way sends nothing of its half). A body
 * over the limit, body bytes written after an explicit {@link #flushBuffer()}, {@code sendError},
 * {@code sendRedirect} or an asynchronous request turn the capture into a pass-through: what was held is
 * sent, the rest goes straight to the client, and the response is not recorded. A flush with nothing
 * written after it (Spring MVC flushes every {@code ResponseEntity} and {@code ProblemDetail} once its
 * body is written) keeps the response held, so it is recorded whole. Writes are synchronized, since an
 * asynchronous handler may write from another thread.
 */
final class CapturingResponse extends HttpServletResponseWrapper {

  private final HttpServletResponse real;
  private final int limit;
  private ByteArrayOutputStream held = new ByteArrayOutputStream();
  private @Nullable String passReason;
  /** The application flushed the buffer: held bytes written after this are a streamed response. */
  private boolean flushed;
  private long declaredLength = -1;
  private @Nullable CaptureStream stream;
  private @Nullable PrintWriter writer;

  CapturingResponse(HttpServletResponse real, int limit) {
    super(real);
    this.real = real;
    this.limit = limit;
  }

  /**
   * Why the response is passed through rather than recorded, or null while it is held whole. Text still
   * in the writer's encoder is taken in first: it may be what turns the response into a pass-through.
   */
  synchronized @Nullable String passReason() {
    flushWriter();
    return passReason;
  }

  /** Sends what is held and passes the rest through; the response will not be recorded. */
  synchronized void passThrough(String reason) throws IOException {
    if (passReason != null) {
      return;
    }
    flushWriter();
    passHeld(reason);
  }

  /**
   * Sends what is held and passes the rest through, without flushing the writer: called from a write,
   * which may come from the writer's own flush, and whose bytes follow everything held.
   */
  private void passHeld(String reason) throws IOException {
    if (passReason != null) {
      return;
    }
    passReason = reason;
    byte[] bytes = held.toByteArray();
    held = new ByteArrayOutputStream(0); // what was held is sent: nothing more is kept
    if (declaredLength >= 0) {
      real.setContentLengthLong(declaredLength);
    }
    if (bytes.length > 0) {
      real.getOutputStream().write(bytes);
    }
  }

  /** Sends the held body (with its exact length) to the client. */
  synchronized void sendHeld() throws IOException {
    flushWriter(); // text still in the writer's encoder goes out (or into the held body) now
    if (passReason != null) {
      return;
    }
    byte[] bytes = held.toByteArray();
    int status = real.getStatus();
    if (bytes.length > 0 || (status >= 200 && status != 204 && status != 304)) {
      real.setContentLength(bytes.length);
    }
    if (bytes.length > 0) {
      real.getOutputStream().write(bytes);
    }
  }

  /** Forgets the held body (the handler failed): nothing of it reaches the client. */
  synchronized void discard() {
    if (passReason == null) {
      held.reset();
    }
  }

  /** The held response as it is recorded: status, the named headers (sanitized as sent), body bytes. */
  synchronized RecordedResponse record(List<String> headerNames) {
    flushWriter();
    List<RecordedResponse.Header> headers = new ArrayList<>();
    for (String name : headerNames) {
      if (name.equalsIgnoreCase("Content-Type")) {
        String type = real.getContentType();
        if (type != null) {
          headers.add(new RecordedResponse.Header("Content-Type", HeaderValues.sanitized(type)));
        }
        continue;
      }
      Collection<String> values = real.getHeaders(name);
      if (values != null) {
        for (String v : values) {
          if (v != null) {
            headers.add(new RecordedResponse.Header(name, HeaderValues.sanitized(v)));
          }
        }
      }
    }
    return new RecordedResponse(real.getStatus(), headers, held.toByteArray());
  }

  private void flushWriter() {
    if (writer != null) {
      writer.flush();
    }
  }

  private synchronized void write(byte[] b, int off, int len) throws IOException {
    if (passReason == null && flushed && len > 0) {
      passHeld("the application flushed it and then wrote more (a streamed response)");
      real.flushBuffer(); // what was flushed reaches the client now, as the application asked
    }
    if (passReason == null && held.size() + (long) len > limit) {
      passHeld("its body is larger than the recording limit of " + limit + " bytes");
    }
    if (passReason != null) {
      real.getOutputStream().write(b, off, len);
    } else {
      held.write(b, off, len);
    }
  }

  @Override
  public synchronized ServletOutputStream getOutputStream() {
    if (writer != null) {
      throw new IllegalStateException("getWriter() was already called for this response");
    }
    if (stream == null) {
      stream = new CaptureStream();
    }
    return stream;
  }

  @Override
  public synchronized PrintWriter getWriter() {
    if (stream != null && writer == null) {
      throw new IllegalStateException("getOutputStream() was already called for this response");
    }
    if (writer == null) {
      stream = new CaptureStream();
      writer = new PrintWriter(new OutputStreamWriter(stream, charset()));
    }
    return writer;
  }

  private Charset charset() {
    String encoding = real.getCharacterEncoding();
    try {
      return encoding == null ? StandardCharsets.ISO_8859_1 : Charset.forName(encoding);
    } catch (IllegalArgumentException e) {
      return StandardCharsets.ISO_8859_1;
    }
  }

  /**
   * Held, a flush only marks the body: if more is written after it, the response is streamed and passes
   * through from then on; if nothing follows, it is sent and recorded whole at the end.
   */
  @Override
  public synchronized void flushBuffer() throws IOException {
    if (passReason != null) {
      real.flushBuffer();
      return;
    }
    flushWriter(); // text in the writer's encoder is part of what was flushed
    flushed = true;
  }

  @Override
  public synchronized void resetBuffer() {
    if (passReason != null) {
      real.resetBuffer();
      return;
    }
    flushWriter();
    held.reset();
    flushed = false;
  }

  @Override
  public synchronized void reset() {
    if (passReason == null) {
      flushWriter();
      held.reset();
      declaredLength = -1;
      flushed = false;
    }
    real.reset();
  }

  @Override
  public synchronized boolean isCommitted() {
    return passReason != null && real.isCommitted();
  }

  @Override
  public synchronized void setContentLength(int length) {
    setContentLengthLong(length);
  }

  @Override
  public synchronized void setContentLengthLong(long length) {
    if (passReason != null) {
      real.setContentLengthLong(length);
    } else {
      declaredLength = length;
    }
  }

  @Override
  public void sendError(int sc, String msg) throws IOException {
    synchronized (this) {
      discard();
      passThrough("the application sent it with sendError (the container writes its body)");
    }
    real.sendError(sc, msg);
  }

  @Override
  public void sendError(int sc) throws IOException {
    synchronized (this) {
      discard();
      passThrough("the application sent it with sendError (the container writes its body)");
    }
    real.sendError(sc);
  }

  @Override
  public void sendRedirect(String location) throws IOException {
    synchronized (this) {
      discard();
      passThrough("the application sent it with sendRedirect");
    }
    real.sendRedirect(location);
  }

  /** The application's output stream: into memory, or straight through once passing. */
  private final class CaptureStream extends ServletOutputStream {
    @Override
    public void write(int b) throws IOException {
      CapturingResponse.this.write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      CapturingResponse.this.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      // a flush of the held body is a no-op: it is sent whole at the end; once passing it reaches the client
      synchronized (CapturingResponse.this) {
        if (passReason != null) {
          real.getOutputStream().flush();
        }
      }
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setWriteListener(WriteListener listener) {
      try {
        listener.onWritePossible();
      } catch (IOException e) {
        listener.onError(e);
      }
    }
  }
}
