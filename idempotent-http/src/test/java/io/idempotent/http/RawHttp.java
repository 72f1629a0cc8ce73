package io.idempotent.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Requests written byte by byte over a socket, for what {@code HttpClient} refuses to send. */
final class RawHttp {

  /** A response read off the wire: status line, header lines as sent, body (de-chunked). */
  record Answer(int status, List<String> headerLines, String body) {
    List<String> values(String name) {
      List<String> values = new ArrayList<>();
      for (String line : headerLines) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          values.add(line.substring(colon + 1).trim());
        }
      }
      return values;
    }
  }

  private RawHttp() {}

  /** Sends {@code head} (lines without the final blank line) and {@code body}, with Connection: close. */
  static Answer send(int port, byte[] head, byte[] body) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      ByteArrayOutputStream request = new ByteArrayOutputStream();
      request.write(head);
      request.write(("Content-Length: " + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      request.write(body);
      socket.getOutputStream().write(request.toByteArray());
      socket.getOutputStream().flush();
      return parse(socket.getInputStream().readAllBytes());
    }
  }

  static byte[] head(String method, String path, String... headerLines) {
    StringBuilder sb = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    for (String line : headerLines) {
      sb.append(line).append("\r\n");
    }
    return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static Answer parse(byte[] raw) throws IOException {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    String[] lines = text.substring(0, end).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    List<String> headers = List.of(lines).subList(1, lines.length);
    String body = text.substring(end + 4);
    boolean chunked = headers.stream().anyMatch(h -> h.toLowerCase(Locale.ROOT).startsWith("transfer-encoding:")
        && h.toLowerCase(Locale.ROOT).contains("chunked"));
    if (chunked) {
      body = dechunk(body);
    }
    return new Answer(status, headers, new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
  }

  private static String dechunk(String body) throws IOException {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (true) {
      int lineEnd = body.indexOf("\r\n", i);
      if (lineEnd < 0) {
        throw new IOException("truncated chunked body");
      }
      int size = Integer.parseInt(body.substring(i, lineEnd).split(";")[0].trim(), 16);
      if (size == 0) {
        return out.toString();
      }
      out.append(body, lineEnd + 2, lineEnd + 2 + size);
      i = lineEnd + 2 + size + 2;
    }
  }

}
