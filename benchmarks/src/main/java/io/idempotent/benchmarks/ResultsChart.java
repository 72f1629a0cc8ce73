package io.idempotent.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Rectangle;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.imageio.ImageIO;

/**
 * Draws the README's chart from JMH result files ({@code -rf json}): for each store and mode, the time
 * of a first call (top row) and of a replay (bottom row), {@code @Idempotent} beside the hand-written
 * floor and, where the run measured it, Apache Camel; each bar is JMH's score and its whisker JMH's
 * score error (the 99.9 % confidence half-width). Every panel has a linear axis of its own, in the
 * benchmark's unit, so that errors can be read against their scores.
 *
 * <p>Usage: {@code ResultsChart out.png results.json...}. A result (benchmark and parameters) found in
 * several files is taken from the last file that has it, so a later run of some benchmarks replaces
 * those results of a complete run; the footer names the file each panel comes from. Draws with
 * java.awt on an image in memory (headless).
 */
public final class ResultsChart {

  static final Color OURS = new Color(0x1f, 0x77, 0xb4);
  static final Color FLOOR = new Color(0x8c, 0x8c, 0x8c);
  static final Color CAMEL = new Color(0xe6, 0x7e, 0x22);
  /** Ours in the transaction-scoped mode (SQL): one commit per first call. */
  static final Color OURS_SCOPED = new Color(0x9e, 0xc9, 0xe8);
  /** The minimal two-commit floor (SQL): the least SQL that claims before the method and records after. */
  static final Color MINIMAL_FLOOR = new Color(0xc8, 0xc8, 0xc8);

  static final int PANEL_WIDTH = 230;
  static final int PANEL_HEIGHT = 250;
  private static final int LEFT = 20;
  private static final int TOP = 78;
  private static final int ROW_GAP = 34;
  private static final int BOTTOM = 64;
  private static final int PLOT_LEFT = 52;
  private static final int PLOT_TOP = 52;
  private static final int PLOT_BOTTOM = 26;

  /** One JMH result: its score and error (NaN when JMH gave none), and the file it was read from. */
  record Score(String benchmark, Map<String, String> params, double score, double error, String unit,
      String source) {}

  /** A bar's contender: how it is labelled and coloured, and the parameter value that selects it. */
  record Contender(String label, String param, String value, Color color) {
    /** The label under its bar (the legend gives the long names). */
    String shortLabel() {
      return color.equals(OURS) ? "ours" : color.equals(FLOOR) ? "floor" : color.equals(OURS_SCOPED) ? "txn"
          : color.equals(MINIMAL_FLOOR) ? "min." : label;
    }
  }

  /** One column of the chart: a store and mode, measured by one benchmark class. */
  record Column(String title, String benchmarkClass, Map<String, String> fixed, List<Contender> contenders) {}

  /** A drawn bar, where it was drawn and what it shows. */
  record Bar(String contender, Color color, double score, double error, Rectangle box) {}

  /** A drawn panel: one column's first call or replay. */
  record Panel(String title, String method, String unit, List<Bar> bars, Rectangle plot) {}

  private final List<Score> scores;
  private final List<Column> columns;
  private final List<Panel> panels = new ArrayList<>();

  ResultsChart(List<Score> scores) {
    this.scores = scores;
    this.columns = columns(scores);
  }

  public static void main(String[] args) throws IOException {
    if (args.length < 2) {
      System.err.println("usage: ResultsChart out.png results.json...");
      System.exit(2);
    }
    List<Path> files = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      files.add(Path.of(args[i]));
    }
    ResultsChart chart = new ResultsChart(read(files));
    ImageIO.write(chart.draw(), "png", Path.of(args[0]).toFile());
  }

  // ---- reading

  /** The results of {@code files}; a result in a later file replaces the same result in an earlier one. */
  static List<Score> read(List<Path> files) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    Map<String, Score> byKey = new LinkedHashMap<>();
    for (Path file : files) {
      JsonNode array = mapper.readTree(Files.readString(file));
      for (JsonNode r : array) {
        Map<String, String> params = new TreeMap<>();
        r.path("params").properties().forEach(e -> params.put(e.getKey(), e.getValue().asText()));
        JsonNode m = r.get("primaryMetric");
        JsonNode e = m.get("scoreError");
        String name = r.get("benchmark").asText();
        name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1); // Class.method
        Score s = new Score(name, params, m.get("score").asDouble(),
            e != null && e.isNumber() ? e.asDouble() : Double.NaN, m.get("scoreUnit").asText(),
            file.getFileName().toString());
        byKey.remove(name + params);
        byKey.put(name + params, s);
      }
    }
    return new ArrayList<>(byKey.values());
  }

  /** The columns for which {@code scores} hold at least one result, in a fixed order. */
  static List<Column> columns(List<Score> scores) {
    List<Column> all = new ArrayList<>();
    all.add(new Column("In memory (Caffeine)", "InMemoryBenchmark", Map.of(), List.of(
        new Contender("@Idempotent", "impl", "idempotent", OURS),
        new Contender("hand-written", "impl", "handWritten", FLOOR))));
    all.add(new Column("In memory, no fingerprint", "InMemoryBenchmark", Map.of(), List.of(
        new Contender("@Idempotent", "impl", "idempotentNoFingerprint", OURS),
        new Contender("hand-written", "impl", "handWrittenNoFingerprint", FLOOR))));
    Set<String> dbs = new TreeSet<>();
    for (Score s : scores) {
      if (s.benchmark.startsWith("SqlBenchmark.") && s.params.containsKey("db")) {
        dbs.add(s.params.get("db"));
      }
    }
    Set<String> ordered = new LinkedHashSet<>();
    for (String known : new String[] {"h2file", "h2mem", "postgres"}) {
      if (dbs.contains(known)) {
        ordered.add(known);
      }
    }
    ordered.addAll(dbs);
    for (String db : ordered) {
      all.add(new Column("SQL: " + dbTitle(db), "SqlBenchmark", Map.of("db", db), List.of(
          new Contender("@Idempotent", "impl", "idempotent", OURS),
          new Contender("@Idempotent, transaction-scoped", "impl", "transactionScoped", OURS_SCOPED),
          new Contender("hand-written", "impl", "handWritten", FLOOR),
          new Contender("minimal two-commit floor", "impl", "minimalFloor", MINIMAL_FLOOR),
          new Contender("Camel", "impl", "camel", CAMEL))));
    }
    all.add(new Column("Redis", "RedisBenchmark", Map.of(), List.of(
        new Contender("@Idempotent", "impl", "idempotent", OURS),
        new Contender("hand-written", "impl", "handWrittenSetNx", FLOOR))));
    List<Column> present = new ArrayList<>();
    for (Column c : all) {
      if (find(scores, c, "firstCall", c.contenders.get(0)) != null
          || find(scores, c, "replay", c.contenders.get(0)) != null) {
        present.add(c);
      }
    }
    return present;
  }

  private static String dbTitle(String db) {
    return switch (db) {
      case "h2file" -> "H2 file";
      case "h2mem" -> "H2 in memory";
      case "postgres" -> "PostgreSQL";
      case "mariadb" -> "MariaDB";
      case "mysql" -> "MySQL";
      default -> db;
    };
  }

  static Score find(List<Score> scores, Column c, String method, Contender who) {
    for (Score s : scores) {
      if (!s.benchmark.equals(c.benchmarkClass + "." + method) || !who.value.equals(s.params.get(who.param))) {
        continue;
      }
      boolean all = true;
      for (Map.Entry<String, String> f : c.fixed.entrySet()) {
        all &= f.getValue().equals(s.params.get(f.getKey()));
      }
      if (all) {
        return s;
      }
    }
    return null;
  }

  // ---- drawing

  List<Column> columns() {
    return columns;
  }

  /** The panels as last drawn by {@link #draw()}. */
  List<Panel> panels() {
    return panels;
  }

  BufferedImage draw() {
    panels.clear();
    int width = LEFT * 2 + Math.max(1, columns.size()) * PANEL_WIDTH;
    int height = TOP + 2 * PANEL_HEIGHT + ROW_GAP + BOTTOM;
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, width, height);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
      g.drawString("Time per call: first call and replay, @Idempotent beside the hand-written floor and Camel",
          LEFT, 26);
      legend(g, LEFT, 50);
      Map<String, Set<String>> sources = new TreeMap<>();
      for (int i = 0; i < columns.size(); i++) {
        Column c = columns.get(i);
        int x = LEFT + i * PANEL_WIDTH;
        String[] methods = {"firstCall", "replay"};
        for (int row = 0; row < 2; row++) {
          int y = TOP + row * (PANEL_HEIGHT + ROW_GAP);
          panel(g, c, methods[row], new Rectangle(x, y, PANEL_WIDTH, PANEL_HEIGHT), sources);
        }
      }
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      g.setColor(Color.DARK_GRAY);
      g.drawString("Bars: JMH score (average time per call); whiskers: JMH score error (99.9 % confidence"
          + " half-width). Each panel has its own linear axis.", LEFT, height - 36);
      List<String> from = new ArrayList<>();
      sources.forEach((file, classes) -> from.add(file + " (" + String.join(", ", classes) + ")"));
      g.drawString("Results from: " + String.join("; ", from), LEFT, height - 16);
    } finally {
      g.dispose();
    }
    return image;
  }

  private static void legend(Graphics2D g, int x, int y) {
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    Object[][] items = {{"ours: @Idempotent", OURS}, {"txn: ours, transaction-scoped (SQL)", OURS_SCOPED},
        {"floor: hand-written, no library", FLOOR}, {"min.: minimal two-commit floor (SQL)", MINIMAL_FLOOR},
        {"Apache Camel (SQL)", CAMEL}};
    for (Object[] item : items) {
      g.setColor((Color) item[1]);
      g.fillRect(x, y - 11, 14, 14);
      g.setColor(Color.BLACK);
      g.drawString((String) item[0], x + 20, y);
      x += 40 + g.getFontMetrics().stringWidth((String) item[0]);
    }
  }

  private void panel(Graphics2D g, Column c, String method, Rectangle frame, Map<String, Set<String>> sources) {
    List<Contender> present = new ArrayList<>();
    List<Score> found = new ArrayList<>();
    for (Contender who : c.contenders) {
      Score s = find(scores, c, method, who);
      if (s != null) {
        present.add(who);
        found.add(s);
        sources.computeIfAbsent(s.source, k -> new TreeSet<>()).add(c.benchmarkClass);
      }
    }
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    drawCentered(g, fit(g, c.title, frame.width - 8), frame.x + frame.width / 2, frame.y + 14);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    drawCentered(g, method.equals("firstCall") ? "first call" : "replay", frame.x + frame.width / 2, frame.y + 30);
    Rectangle plot = new Rectangle(frame.x + PLOT_LEFT, frame.y + PLOT_TOP, frame.width - PLOT_LEFT - 14,
        frame.height - PLOT_TOP - PLOT_BOTTOM);
    List<Bar> bars = new ArrayList<>();
    if (found.isEmpty()) {
      g.setFont(new Font(Font.SANS_SERIF, Font.ITALIC, 12));
      g.setColor(Color.GRAY);
      drawCentered(g, "not measured", plot.x + plot.width / 2, plot.y + plot.height / 2);
      panels.add(new Panel(c.title, method, "", bars, plot));
      return;
    }
    String unit = found.get(0).unit;
    double top = 0;
    for (Score s : found) {
      top = Math.max(top, s.score + (Double.isNaN(s.error) ? 0 : s.error));
    }
    double step = niceStep(top / 4);
    double axisMax = Math.ceil(top / step) * step;
    // axis and grid
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    FontMetrics fm = g.getFontMetrics();
    for (double v = 0; v <= axisMax + step / 2; v += step) {
      int y = yOf(v, axisMax, plot);
      g.setColor(new Color(0xe4, 0xe4, 0xe4));
      g.drawLine(plot.x, y, plot.x + plot.width, y);
      g.setColor(Color.DARK_GRAY);
      String label = tick(v, step);
      g.drawString(label, plot.x - 6 - fm.stringWidth(label), y + 4);
    }
    g.setColor(Color.DARK_GRAY);
    g.drawLine(plot.x, plot.y, plot.x, plot.y + plot.height);
    g.drawLine(plot.x, plot.y + plot.height, plot.x + plot.width, plot.y + plot.height);
    g.drawString(unit.replace("us/op", "µs/op"), frame.x + 4, plot.y - 6);
    // bars
    int slot = plot.width / found.size();
    int barWidth = Math.min(46, slot - 14);
    for (int i = 0; i < found.size(); i++) {
      Score s = found.get(i);
      Contender who = present.get(i);
      int cx = plot.x + slot * i + slot / 2;
      int yTop = yOf(s.score, axisMax, plot);
      Rectangle box = new Rectangle(cx - barWidth / 2, yTop, barWidth, plot.y + plot.height - yTop);
      g.setColor(who.color);
      g.fillRect(box.x, box.y, box.width, box.height);
      int whiskerTop = yTop;
      if (!Double.isNaN(s.error) && s.error > 0) {
        whiskerTop = yOf(s.score + s.error, axisMax, plot);
        int whiskerBottom = yOf(Math.max(0, s.score - s.error), axisMax, plot);
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1.5f));
        g.drawLine(cx, whiskerTop, cx, whiskerBottom);
        g.drawLine(cx - 6, whiskerTop, cx + 6, whiskerTop);
        g.drawLine(cx - 6, whiskerBottom, cx + 6, whiskerBottom);
        g.setStroke(new BasicStroke(1f));
      }
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
      drawCentered(g, number(s.score), cx, whiskerTop - 4);
      g.setColor(Color.DARK_GRAY);
      if (found.size() > 4) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 9)); // five labels under a panel's width
      }
      drawCentered(g, fit(g, who.shortLabel(), slot), cx, plot.y + plot.height + 15);
      bars.add(new Bar(who.label, who.color, s.score, s.error, box));
    }
    panels.add(new Panel(c.title, method, unit, bars, plot));
  }

  /** The pixel row of {@code value} on a linear axis from 0 (the plot's bottom) to {@code max} (its top). */
  static int yOf(double value, double max, Rectangle plot) {
    double clamped = Math.max(0, Math.min(value, max));
    return plot.y + plot.height - (int) Math.round(clamped / max * plot.height);
  }

  /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
  static double niceStep(double raw) {
    if (!(raw > 0)) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= raw) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static String tick(double v, double step) {
    return String.format(Locale.ROOT, step >= 1 ? "%,.0f" : step >= 0.1 ? "%.1f" : "%.2f", v);
  }

  private static String number(double v) {
    if (v >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (v >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  private static void drawCentered(Graphics2D g, String text, int cx, int baseline) {
    g.drawString(text, cx - g.getFontMetrics().stringWidth(text) / 2, baseline);
  }

  private static String fit(Graphics2D g, String text, int width) {
    FontMetrics fm = g.getFontMetrics();
    if (fm.stringWidth(text) <= width) {
      return text;
    }
    String t = text;
    while (t.length() > 1 && fm.stringWidth(t + "…") > width) {
      t = t.substring(0, t.length() - 1);
    }
    return t + "…";
  }
}
