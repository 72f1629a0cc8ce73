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
 * Explains why the embedded H2 file cannot be opened when H2's own error only says "Unsupported database
 * file version or invalid file header": the file was written by an H2 whose file format the H2 on the class
 * path does not read (H2 1.4 wrote format 1 or 2), and what to do about it.
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
