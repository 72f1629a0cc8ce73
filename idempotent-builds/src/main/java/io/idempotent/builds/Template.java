package io.idempotent.builds;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A sample's pom.xml with the README's snippets in it: each line {@code <!-- README snippet: NAME [PATH] -->}
 * becomes the lines of that snippet (or of the part PATH names, see {@link Snippets#lines}), indented as the
 * marker line is. In what a snippet brings, the placeholder line for the user's annotation processors
 * ({@code <!-- your annotation processors ...-->}) becomes the sample's own {@code <path>} elements. A pom
 * without a marker is a sample of a build the README does not print, and stays as it is.
 */
final class Template {

  static final Pattern MARKER =
      Pattern.compile("^(\\s*)<!--\\s*README snippet:\\s*([A-Za-z0-9._-]+)(?:\\s+(\\S+))?\\s*-->\\s*$");
  static final Pattern PROCESSORS = Pattern.compile("^(\\s*)<!--\\s*your annotation processors\\b.*-->\\s*$");

  /** In a sample's Java source: the line where a README snippet's code goes, whole. */
  static final Pattern SOURCE_MARKER = Pattern.compile("^(\\s*)//\\s*README snippet:\\s*([A-Za-z0-9._-]+)\\s*$");

  private Template() {}

  /**
   * Renders a sample's Java source (text {@code template}, {@code source} names it in messages): each line
   * {@code // README snippet: NAME} becomes that snippet's code, indented as the marker line is. A source
   * without a marker stays as it is.
   */
  static String renderSource(String source, String template, Snippets snippets) {
    List<String> out = new ArrayList<>();
    List<String> lines = template.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = SOURCE_MARKER.matcher(lines.get(i));
      if (!m.matches()) {
        out.add(lines.get(i));
        continue;
      }
      try {
        out.addAll(reindent(snippets.lines(m.group(2), ""), m.group(1)));
      } catch (SnippetException e) {
        throw new SnippetException(source + ":" + (i + 1) + ": " + e.getMessage());
      }
    }
    return String.join("\n", out) + "\n";
  }

  /**
   * Renders {@code template} (text of a pom.xml, {@code source} names it in messages).
   *
   * @param processorPaths the sample's {@code <path>} elements for the placeholder; null when the sample
   *     has none (the placeholder line then stays, a comment)
   */
  static String render(String source, String template, Snippets snippets, List<String> processorPaths) {
    List<String> out = new ArrayList<>();
    boolean processorsPlaced = false;
    List<String> lines = template.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher m = MARKER.matcher(line);
      if (!m.matches()) {
        if (line.contains("README snippet")) {
          throw new SnippetException(source + ":" + (i + 1) + ": a README snippet marker must stand alone on "
              + "its line as <!-- README snippet: NAME [PATH] -->, found: " + line.trim());
        }
        out.add(line);
        continue;
      }
      String indent = m.group(1);
      String name = m.group(2);
      String path = m.group(3) == null ? "" : m.group(3);
      List<String> snippet;
      try {
        snippet = snippets.lines(name, path);
      } catch (SnippetException e) {
        throw new SnippetException(source + ":" + (i + 1) + ": " + e.getMessage());
      }
      for (String s : reindent(snippet, indent)) {
        Matcher p = PROCESSORS.matcher(s);
        if (p.matches() && processorPaths != null) {
          out.addAll(reindent(processorPaths, p.group(1)));
          processorsPlaced = true;
        } else {
          out.add(s);
        }
      }
    }
    if (processorPaths != null && !processorsPlaced) {
      throw new SnippetException(source + ": the sample has annotation processors, but none of the README "
          + "snippets it uses has the placeholder line for them (<!-- your annotation processors (Lombok, "
          + "MapStruct, ...): their <path> elements here -->) inside <annotationProcessorPaths>");
    }
    return String.join("\n", out) + "\n";
  }

  /** The lines with their common leading white space replaced by {@code indent}; blank lines stay empty. */
  static List<String> reindent(List<String> lines, String indent) {
    int common = Integer.MAX_VALUE;
    for (String l : lines) {
      if (!l.isBlank()) {
        common = Math.min(common, l.length() - l.stripLeading().length());
      }
    }
    List<String> out = new ArrayList<>(lines.size());
    for (String l : lines) {
      out.add(l.isBlank() ? "" : indent + l.substring(common));
    }
    return out;
  }
}
