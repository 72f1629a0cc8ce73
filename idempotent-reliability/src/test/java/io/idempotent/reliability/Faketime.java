package io.idempotent.reliability;

import io.idempotent.testservers.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * libfaketime (Debian package {@code faketime}, library package {@code libfaketime}): shifts a child
 * process's wall clock by preloading the library with {@code FAKETIME}. Where the library is missing and
 * the tests run as root, it is installed with {@code apt-get update} and {@code apt-get install -y
 * faketime}; otherwise the test is skipped (failed when servers are required). The monotonic clock is
 * left alone ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}): the skew under test is the time of day.
 */
final class Faketime {

  private static Path library;

  private Faketime() {}

  /** The environment that shifts a child's clock by {@code offset} ({@code "+1h"}, {@code "-1h"}). */
  static Map<String, String> environment(String offset) throws Exception {
    return Map.of("LD_PRELOAD", library().toString(), "FAKETIME", offset, "FAKETIME_DONT_FAKE_MONOTONIC", "1");
  }

  private static synchronized Path library() throws Exception {
    if (library == null) {
      library = find();
      if (library == null && "root".equals(System.getProperty("user.name"))) {
        System.err.println("[idempotent-reliability] libfaketime missing: apt-get install -y faketime");
        run(600, "apt-get", "update");
        run(600, "apt-get", "install", "-y", "faketime");
        library = find();
      }
      if (library == null) {
        TestServers.skipOrFail("No libfaketime.so.1 (Debian package faketime), and it could not be installed"
            + " (apt-get install -y faketime needs root).");
      }
    }
    return library;
  }

  /** libfaketime.so.1 as {@code dpkg -L libfaketime} lists it, or null. */
  private static Path find() throws Exception {
    String listing = run(60, "dpkg", "-L", "libfaketime");
    if (listing == null) {
      return null;
    }
    return listing.lines().filter(l -> l.endsWith("/libfaketime.so.1")).map(Path::of)
        .filter(Files::isReadable).findFirst().orElse(null);
  }

  /** Runs a command; its output, or null when it cannot run or exits with non-zero. */
  private static String run(int timeoutSeconds, String... command) throws Exception {
    Path out = Files.createTempFile("idempotent-faketime", ".log");
    try {
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
      pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
      Process p;
      try {
        p = pb.start();
      } catch (IOException e) {
        return null; // no dpkg or apt-get here
      }
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 ? Files.readString(out, StandardCharsets.UTF_8) : null;
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
