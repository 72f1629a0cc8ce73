package io.idempotent.builds;

import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  private static final Pattern JAVA_FENCE = Pattern.compile("^\\s*```\\s*java\\s*$");

  private final String source;
  private final Map<String, List<String>> blocks;
  /** The file each snippet was read from, for messages. */
  private final Map<String, String> origins;
  /** Where a ```java block has no marker: {@code file:line}. */
  private final List<String> unmarkedJava;
  /** The snippets a sample asked for. */
  private final Set<String> used = new HashSet<>();

  private Snippets(String source, Map<String, List<String>> blocks, Map<String, String> origins,
      List<String> unmarkedJava) {
    this.source = source;
    this.blocks = blocks;
    this.origins = origins;
    this.unmarkedJava = unmarkedJava;
  }

  /**
   * Reads the snippets of several texts (file name to text, in the order given), whose names must differ
   * across them as within each: a name marked in two files fails naming both.
   */
  static Snippets parse(Map<String, String> texts) {
    Map<String, List<String>> blocks = new LinkedHashMap<>();
    Map<String, String> origins = new LinkedHashMap<>();
    List<String> unmarkedJava = new ArrayList<>();
    for (Map.Entry<String, String> text : texts.entrySet()) {
      Snippets one = parse(text.getKey(), text.getValue());
      unmarkedJava.addAll(one.unmarkedJava);
      for (Map.Entry<String, List<String>> block : one.blocks.entrySet()) {
        String earlier = origins.putIfAbsent(block.getKey(), text.getKey());
        if (earlier != null) {
          throw new SnippetException("snippet '" + block.getKey() + "' is marked in " + earlier + " and in "
              + text.getKey() + ": a snippet's name must be unique across the README and the docs");
        }
        blocks.put(block.getKey(), block.getValue());
      }
    }
    return new Snippets(String.join(", ", texts.keySet()), blocks, origins, List.copyOf(unmarkedJava));
  }

  /** Reads the snippets of a README's text; {@code source} names the file in messages. */
  static Snippets parse(String source, String readme) {
    List<String> lines = readme.lines().toList();
    Map<String, List<String>> blocks = new LinkedHashMap<>();
    List<String> unmarkedJava = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = MARKER.matcher(lines.get(i));
      if (!m.matches()) {
        if (FENCE.matcher(lines.get(i)).matches()) {
          // a block without a marker: noted when it is Java, then skipped whole
          if (JAVA_FENCE.matcher(lines.get(i)).matches()) {
            unmarkedJava.add(source + ":" + (i + 1));
          }
          i++;
          while (i < lines.size() && !FENCE.matcher(lines.get(i)).matches()) {
            i++;
          }
        }
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
    Map<String, String> origins = new LinkedHashMap<>();
    blocks.keySet().forEach(name -> origins.put(name, source));
    return new Snippets(source, blocks, origins, List.copyOf(unmarkedJava));
  }

  /**
   * The lines of snippet {@code name}, or of a part of it: {@code path} is empty for the whole block,
   * {@code a/b} for element {@code b} inside top-level element {@code a} (its tags included), {@code a/b/*}
   * for what is inside it (the lines between its start and end tag).
   */
  List<String> lines(String name, String path) {
    List<String> block = blocks.get(name);
    used.add(name);
    if (block == null) {
      throw new SnippetException(source + " has no snippet '" + name + "' (a line <!-- snippet: " + name
          + " --> before a fenced code block); the " + (blocks.isEmpty() ? "markers are missing"
          : "snippets are " + blocks.keySet()));
    }
    if (path.isEmpty()) {
      return block;
    }
    String source = origins.get(name);
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

  /** The snippets no sample has asked for yet, each with its file. */
  List<String> unused() {
    return blocks.keySet().stream().filter(n -> !used.contains(n)).map(n -> n + " (" + origins.get(n) + ")")
        .toList();
  }

  /** The ```java blocks without a marker, as {@code file:line}. */
  List<String> unmarkedJava() {
    return unmarkedJava;
  }

  private int[] span(String name, List<String> block, String elementPath) {
    String source = origins.get(name);
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
