package io.idempotent.builds;

import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The XML blocks of a README that a line {@code <!-- snippet: NAME -->} announces: the fenced block that
 * follows the marker (blank lines between them allowed), line for line as printed.
 */
final class Snippets {

  private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*snippet:\\s*([A-Za-z0-9._-]+)\\s*-->\\s*$");
  private static final Pattern FENCE = Pattern.compile("^\\s*```.*$");

  private final String source;
  private final Map<String, List<String>> blocks;

  private Snippets(String source, Map<String, List<String>> blocks) {
    this.source = source;
    this.blocks = blocks;
  }

  /** Reads the snippets of a README's text; {@code source} names the file in messages. */
  static Snippets parse(String source, String readme) {
    List<String> lines = readme.lines().toList();
    Map<String, List<String>> blocks = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = MARKER.matcher(lines.get(i));
      if (!m.matches()) {
        continue;
      }
      String name = m.group(1);
      int open = i + 1;
      while (open < lines.size() && lines.get(open).isBlank()) {
        open++;
      }
      if (open >= lines.size() || !FENCE.matcher(lines.get(open)).matches()) {
        throw new SnippetException(source + ":" + (i + 1) + ": the marker of snippet '" + name
            + "' is not followed by a fenced code block");
      }
      int close = open + 1;
      while (close < lines.size() && !FENCE.matcher(lines.get(close)).matches()) {
        close++;
      }
      if (close >= lines.size()) {
        throw new SnippetException(source + ":" + (open + 1) + ": the code block of snippet '" + name
            + "' is never closed");
      }
      if (blocks.put(name, List.copyOf(lines.subList(open + 1, close))) != null) {
        throw new SnippetException(source + ":" + (i + 1) + ": snippet '" + name + "' is marked twice");
      }
      i = close;
    }
    return new Snippets(source, blocks);
  }

  /**
   * The lines of snippet {@code name}, or of a part of it: {@code path} is empty for the whole block,
   * {@code a/b} for element {@code b} inside top-level element {@code a} (its tags included), {@code a/b/*}
   * for what is inside it (the lines between its start and end tag).
   */
  List<String> lines(String name, String path) {
    List<String> block = blocks.get(name);
    if (block == null) {
      throw new SnippetException(source + " has no snippet '" + name + "' (a line <!-- snippet: " + name
          + " --> before a fenced code block); the README's " + (blocks.isEmpty() ? "markers are missing"
          : "snippets are " + blocks.keySet()));
    }
    if (path.isEmpty()) {
      return block;
    }
    boolean inside = path.endsWith("/*");
    String elementPath = inside ? path.substring(0, path.length() - 2) : path;
    int[] span = span(name, block, elementPath);
    int start = span[0];
    int end = span[1];
    if (inside) {
      if (!block.get(start).trim().startsWith("<") || !block.get(end).trim().startsWith("</")
          || start == end) {
        throw new SnippetException("snippet '" + name + "' of " + source + ": <" + last(elementPath)
            + "> does not have its start and end tags on lines of their own");
      }
      return List.copyOf(block.subList(start + 1, end));
    }
    return List.copyOf(block.subList(start, end + 1));
  }

  /** The names of the snippets found, in the order of the README. */
  List<String> names() {
    return List.copyOf(blocks.keySet());
  }

  private int[] span(String name, List<String> block, String elementPath) {
    // the block may hold several top-level elements (dependencyManagement and dependencies): give it a root
    String xml = "<snippet>\n" + String.join("\n", block) + "\n</snippet>";
    try {
      XMLStreamReader r = XMLInputFactory.newFactory().createXMLStreamReader(new StringReader(xml));
      Deque<String> open = new ArrayDeque<>();
      int startLine = -1;
      while (r.hasNext()) {
        int event = r.next();
        if (event == XMLStreamReader.START_ELEMENT) {
          open.addLast(r.getLocalName());
          if (startLine < 0 && currentPath(open).equals(elementPath)) {
            // the parser's line is that of the tag's end; its line in the block is one less (the root's line)
            startLine = r.getLocation().getLineNumber() - 2;
          }
        } else if (event == XMLStreamReader.END_ELEMENT) {
          if (startLine >= 0 && currentPath(open).equals(elementPath)) {
            return new int[] {startLine, r.getLocation().getLineNumber() - 2};
          }
          open.removeLast();
        }
      }
    } catch (XMLStreamException e) {
      throw new SnippetException("snippet '" + name + "' of " + source + " is not well-formed XML: "
          + e.getMessage());
    }
    throw new SnippetException("snippet '" + name + "' of " + source + " has no element " + elementPath);
  }

  private static String currentPath(Deque<String> open) {
    List<String> names = new ArrayList<>(open);
    return String.join("/", names.subList(1, names.size()));
  }

  private static String last(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
