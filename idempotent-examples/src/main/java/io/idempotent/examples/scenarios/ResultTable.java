package io.idempotent.examples.scenarios;

import java.util.ArrayList;
import java.util.List;

/** Renders the scenarios' counts as a Markdown table, readable in a terminal and pasteable in a README. Stateless. */
public final class ResultTable {

  static final String[] HEADINGS = {"#", "scenario", "calls", "executions", "absorbed", "side effects",
      "what the callers saw"};
  private static final boolean[] NUMERIC = {false, false, true, true, true, false, false};

  private ResultTable() {}

  public static String render(List<ScenarioResult> results) {
    List<String[]> rows = new ArrayList<>();
    for (ScenarioResult r : results) {
      rows.add(new String[] {r.id(), r.title(), Long.toString(r.calls()), Long.toString(r.executions()),
          Long.toString(r.absorbed()), r.sideEffectsText(), r.how()});
    }
    int[] width = new int[HEADINGS.length];
    for (int c = 0; c < width.length; c++) {
      width[c] = Math.max(3, HEADINGS[c].length());
      for (String[] row : rows) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    line(sb, HEADINGS, width);
    String[] rule = new String[width.length];
    for (int c = 0; c < width.length; c++) {
      rule[c] = "-".repeat(width[c] - 1) + (NUMERIC[c] ? ":" : "-");
    }
    line(sb, rule, width);
    rows.forEach(row -> line(sb, row, width));
    return sb.toString();
  }

  private static void line(StringBuilder sb, String[] cells, int[] width) {
    sb.append('|');
    for (int c = 0; c < cells.length; c++) {
      String cell = cells[c];
      String pad = " ".repeat(width[c] - cell.length());
      sb.append(' ').append(NUMERIC[c] ? pad + cell : cell + pad).append(" |");
    }
    sb.append('\n');
  }
}
