package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.idempotent.caffeine.CaffeineIdempotencyStore;
import io.idempotent.runtime.Idempotency;
import io.idempotent.runtime.IdempotencyConfig;
import jakarta.servlet.MultipartConfigElement;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.Part;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multipart form uploads through the filter. A client that retries a multipart request usually sends a
 * new random boundary each time, so the body's bytes differ from one attempt to the next while the form is
 * the same: the fingerprint is taken over the parts the container parsed, not over the raw bytes.
 */
class HttpMultipartTest {

  @TempDir
  Path uploads;

  private final AtomicInteger executions = new AtomicInteger();
  private JettyServer server;

  /** Answers with the parts it read through {@code getParts()} and a form field through {@code getParameter}. */
  private final HttpServlet formServlet = new HttpServlet() {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException, jakarta.servlet.ServletException {
      int n = executions.incrementAndGet();
      StringBuilder out = new StringBuilder("upload " + n + ": title=" + req.getParameter("title"));
      for (Part part : req.getParts()) {
        out.append("; ").append(part.getName()).append(' ').append(part.getSubmittedFileName()).append(' ')
            .append(new String(part.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
      resp.setStatus(201);
      resp.setContentType("text/plain;charset=utf-8");
      resp.getWriter().write(out.toString());
    }
  };

  /** A servlet with no multipart configuration, which reads the raw body itself. */
  private final HttpServlet rawServlet = new HttpServlet() {
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      int n = executions.incrementAndGet();
      byte[] body = req.getInputStream().readAllBytes();
      resp.setStatus(201);
      resp.setContentType("text/plain;charset=utf-8");
      resp.getWriter().write("raw " + n + ": " + body.length + " bytes");
    }
  };

  private void start(HttpServlet servlet, MultipartConfigElement multipart) throws Exception {
    Idempotency idempotency = Idempotency.create(IdempotencyConfig.builder()
        .store(CaffeineIdempotencyStore.builder().build()).build());
    server = JettyServer.start(servlet, multipart,
        new IdempotencyFilter(HttpIdempotencySettings.builder().idempotency(idempotency).build()));
  }

  private MultipartConfigElement multipart() throws IOException {
    return new MultipartConfigElement(Files.createDirectories(uploads.resolve("parts")).toString(), 1 << 20, 2 << 20, 0);
  }

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> upload(String key, String boundary, String title, String fileContent) throws Exception {
    String body = "--" + boundary + "\r\n"
        + "Content-Disposition: form-data; name=\"title\"\r\n\r\n"
        + title + "\r\n"
        + "--" + boundary + "\r\n"
        + "Content-Disposition: form-data; name=\"file\"; filename=\"invoice.txt\"\r\n"
        + "Content-Type: text/plain\r\n\r\n"
        + fileContent + "\r\n"
        + "--" + boundary + "--\r\n";
    HttpRequest request = HttpRequest.newBuilder(server.uri("/uploads")).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
        .header("Idempotency-Key", IdempotencyKeyHeader.format(key))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return Http.CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aRetryWithANewBoundaryReplays_andTheHandlerReadsItsPartsAndFields() throws Exception {
    start(formServlet, multipart());
    String key = UUID.randomUUID().toString();

    HttpResponse<String> first = upload(key, "boundary-" + UUID.randomUUID(), "March", "total 12.50");
    HttpResponse<String> retry = upload(key, "other-" + UUID.randomUUID(), "March", "total 12.50");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.body()).isEqualTo("upload 1: title=March; title null March; file invoice.txt total 12.50");
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(Http.replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(executions).hasValue(1);
  }

  @Test
  void theSameKeyWithAnotherFileOrFieldIsRefusedWith422() throws Exception {
    start(formServlet, multipart());
    String key = UUID.randomUUID().toString();
    String boundary = "boundary-" + UUID.randomUUID();

    assertThat(upload(key, boundary, "March", "total 12.50").statusCode()).isEqualTo(201);
    HttpResponse<String> otherFile = upload(key, boundary, "March", "total 99.00");
    HttpResponse<String> otherField = upload(key, boundary, "April", "total 12.50");

    assertThat(otherFile.statusCode()).isEqualTo(422);
    assertThat(otherField.statusCode()).isEqualTo(422);
    assertThat(otherFile.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(executions).hasValue(1);
  }

  @Test
  void aPartOverTheContainersLimitIsAClearRefusal_andRunsNothing() throws Exception {
    start(formServlet, new MultipartConfigElement(uploads.toString(), 64, 1 << 20, 0));
    String key = UUID.randomUUID().toString();

    HttpResponse<String> response = upload(key, "b-" + UUID.randomUUID(), "March", "x".repeat(1000));

    assertThat(response.statusCode()).as(response.body()).isEqualTo(413);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(response.body()).contains("multipart");
    assertThat(executions).hasValue(0);
  }

  @Test
  void aBodyThatIsNoMultipartFormIsRefusedWith400_andRunsNothing() throws Exception {
    start(formServlet, multipart());
    HttpRequest request = HttpRequest.newBuilder(server.uri("/uploads")).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "multipart/form-data; boundary=expected")
        .header("Idempotency-Key", IdempotencyKeyHeader.format(UUID.randomUUID().toString()))
        .POST(HttpRequest.BodyPublishers.ofString("--other\r\nnot a part at all")).build();

    HttpResponse<String> response = Http.CLIENT.send(request, HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    assertThat(response.body()).contains("\"code\":\"request-body-malformed\"", "multipart");
    assertThat(executions).hasValue(0);
  }

  @Test
  void aServletWithoutMultipartConfigurationReadsTheRawBody_fingerprintedByItsBytes() throws Exception {
    start(rawServlet, null);
    String key = UUID.randomUUID().toString();
    String boundary = "boundary-" + UUID.randomUUID();

    HttpResponse<String> first = upload(key, boundary, "March", "total 12.50");
    HttpResponse<String> retry = upload(key, boundary, "March", "total 12.50");
    HttpResponse<String> changed = upload(key, boundary, "March", "total 99.00");

    assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
    assertThat(first.body()).startsWith("raw 1: ").endsWith(" bytes").doesNotContain(": 0 bytes");
    assertThat(Http.replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(changed.statusCode()).isEqualTo(422);
    assertThat(executions).hasValue(1);
  }
}
