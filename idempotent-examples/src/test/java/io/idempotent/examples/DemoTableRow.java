package io.idempotent.examples;

import java.util.LinkedHashMap;
import java.util.Map;

/** One row of the table the demo prints, read back from its output. */
record DemoTableRow(String id, long calls, long executions, long absorbed, long sideEffects, String how) {

  /** The rows of the Markdown table in {@code output}, by scenario id, in order. */
  static Map<String, DemoTableRow> parse(String output) {
    Map<String, DemoTableRow> rows = new LinkedHashMap<>();
    for (String line : output.split("\\R")) {
      if (!line.startsWith("| ") || line.startsWith("| #") || line.startsWith("| --")) {
        continue;
      }
      String[] cells = line.split("\\|");
      String id = cells[1].trim();
      rows.put(id, new DemoTableRow(id, number(cells[3]), number(cells[4]), number(cells[5]),
          number(cells[6].trim().split(" ")[0]), cells[7].trim()));
    }
    return rows;
  }

  private static long number(String cell) {
    return Long.parseLong(cell.trim());
  }
}
