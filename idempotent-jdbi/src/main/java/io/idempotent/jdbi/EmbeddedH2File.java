package io.idempotent.jdbi;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the provider checks of an H2 database file before it opens it: an empty or unreadable file is
 * refused rather than taken for a new database; and, when H2's own error only says "Unsupported database
 * file version or invalid file header", that the file was written by an H2 whose file format the H2 on the
 * class path does not read (H2 1.4 wrote format 1 or 2), and what to do about it.
 */
final class EmbeddedH2File {

  /** H2's error code for a file format it does not read ({@code ErrorCode.FILE_VERSION_ERROR_1}). */
  static final int UNSUPPORTED_FILE_FORMAT = 90048;

  private static final Pattern FORMAT = Pattern.compile("(?:^|,)format:([0-9a-fA-F]+)(?:,|$)");

  private EmbeddedH2File() {
  }

  /**
   * The explanation, if {@code failure} (or one of its causes) is H2 refusing the file format.
   *
   * @param database the database path without H2's {@code .mv.db} suffix
   */
  static Optional<String> explain(Throwable failure, Path database) {
    if (!refusesFileFormat(failure)) {
      return Optional.empty();
    }
    Path file = Path.of(database + ".mv.db");
    String format = headerFormat(file).map(f -> " (file format " + f + ")").orElse("");
    return Optional.of("The embedded H2 database file " + file + " was written by another H2 version" + format
        + ", which the H2 on the class path cannot read: export its records with the H2 version"
        + " that wrote it (java -cp h2-<old version>.jar org.h2.tools.Script -url jdbc:h2:file:" + database
        + " -user sa -script idempotent.sql), move the file away and import the script with this H2"
        + " (org.h2.tools.RunScript), or delete the file to start afresh (calls recorded only there may then"
        + " run again); or point idempotent.jdbi.url at another database");
  }

  /**
   * Why the H2 database file at {@code database} (without H2's {@code .mv.db} suffix) must not be opened: it
   * is there but empty, as a file truncated by a full disk, a failed copy or a restore leaves it, or it
   * cannot be read. H2 would take an empty file for a new database and every recorded call would run again;
   * a file that cannot be read would fail every call. Empty when the file is absent or looks usable.
   */
  static Optional<String> refusal(Path database) {
    Path file = Path.of(database + ".mv.db");
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    String what;
    try {
      what = Files.size(file) == 0 ? "is empty (0 bytes)" : !Files.isReadable(file) ? "cannot be read" : null;
    } catch (IOException e) {
      what = "cannot be read (" + e.getMessage() + ")";
    }
    if (what == null) {
      return Optional.empty();
    }
    return Optional.of("The H2 database file " + file + " " + what + ": opened as it is, it would be a new, empty"
        + " database, and every call recorded in it would run again. Restore the file from a backup, or, to start"
        + " afresh on purpose (calls recorded only there may then run again), move it away or delete it; or point"
        + " idempotent.jdbi.url at another database");
  }

  /**
   * The database path of an H2 URL that names a file ({@code jdbc:h2:file:path…}, also {@code ~}/ for the
   * home directory), or empty for any other URL (in memory, over TCP, another database).
   */
  static Optional<Path> fileOf(String jdbcUrl) {
    String prefix = "jdbc:h2:file:";
    if (jdbcUrl == null || !jdbcUrl.regionMatches(true, 0, prefix, 0, prefix.length())) {
      return Optional.empty();
    }
    String path = jdbcUrl.substring(prefix.length());
    int settings = path.indexOf(';');
    if (settings >= 0) {
      path = path.substring(0, settings);
    }
    if (path.startsWith("~")) {
      path = System.getProperty("user.home") + path.substring(1);
    }
    return path.isBlank() ? Optional.empty() : Optional.of(Path.of(path));
  }

  private static boolean refusesFileFormat(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getErrorCode() == UNSUPPORTED_FILE_FORMAT) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /** The format named in the file's header ({@code H:2,...,format:N,...}), when it can be read. */
  static Optional<String> headerFormat(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      String header = new String(in.readNBytes(512), StandardCharsets.ISO_8859_1);
      int end = header.indexOf('\n');
      Matcher m = FORMAT.matcher(end < 0 ? header : header.substring(0, end));
      return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
