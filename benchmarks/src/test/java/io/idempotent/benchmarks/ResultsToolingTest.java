package io.idempotent.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.awt.Color;
import java.awt.Rectangle;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The results tooling on a JMH result file written here: {@link ResultsChart} draws one bar per
 * contender and measured benchmark, as high as its score, in its contender's colour, and takes a
 * result from the last file that has it; {@link ResultsTable} turns the same file into the goal rows.
 */
class ResultsToolingTest {

  @TempDir
  Path dir;

  private static String result(String benchmark, String params, double score, double error, String unit,
      double alloc) {
    return String.format(Locale.ROOT, "{\"benchmark\": \"io.idempotent.benchmarks.%s\", \"mode\": \"avgt\","
        + " \"params\": {%s}, \"primaryMetric\": {\"score\": %s, \"scoreError\": %s, \"scoreUnit\": \"%s\"},"
        + " \"secondaryMetrics\": {\"gc.alloc.rate.norm\": {\"score\": %s, \"scoreError\": 0.5,"
        + " \"scoreUnit\": \"B/op\"}}}", benchmark, params, score, error, unit, alloc);
  }

  private Path write(String name, String... results) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, "[" + String.join(",\n", results) + "]");
    return file;
  }

  private Path run() throws IOException {
    return write("run.json",
        result("InMemoryBenchmark.firstCall", "\"impl\": \"idempotent\"", 3000, 300, "ns/op", 1800),
        result("InMemoryBenchmark.firstCall", "\"impl\": \"handWritten\"", 2000, 100, "ns/op", 1200),
        result("InMemoryBenchmark.replay", "\"impl\": \"idempotent\"", 300, 9, "ns/op", 560),
        result("InMemoryBenchmark.replay", "\"impl\": \"handWritten\"", 250, 5, "ns/op", 432),
        result("SqlBenchmark.firstCall", "\"db\": \"postgres\", \"impl\": \"idempotent\"", 380, 20, "us/op", 4448),
        result("SqlBenchmark.firstCall", "\"db\": \"postgres\", \"impl\": \"handWritten\"", 370, 24, "us/op", 3809),
        result("SqlBenchmark.firstCall", "\"db\": \"postgres\", \"impl\": \"camel\"", 300, 12, "us/op", 3766),
        result("SqlBenchmark.firstCall", "\"db\": \"postgres\", \"impl\": \"transactionScoped\"", 270, 15, "us/op",
            5194),
        result("SqlBenchmark.firstCall", "\"db\": \"postgres\", \"impl\": \"minimalFloor\"", 330, 10, "us/op", 2902));
  }

  @Test
  void chart_drawsABarPerContender_asHighAsItsScore_withItsErrorAndColour() throws IOException {
    ResultsChart chart = new ResultsChart(ResultsChart.read(List.of(run())));

    assertThat(chart.columns()).extracting(ResultsChart.Column::title)
        .containsExactly("In memory (Caffeine)", "SQL: PostgreSQL");
    BufferedImage image = chart.draw();
    List<ResultsChart.Panel> panels = chart.panels();
    assertThat(panels).extracting(p -> p.title() + " " + p.method()).containsExactly(
        "In memory (Caffeine) firstCall", "In memory (Caffeine) replay", "SQL: PostgreSQL firstCall",
        "SQL: PostgreSQL replay");

    List<ResultsChart.Bar> first = panels.get(0).bars();
    assertThat(first).extracting(ResultsChart.Bar::contender).containsExactly("@Idempotent", "hand-written");
    assertThat(first).extracting(ResultsChart.Bar::score).containsExactly(3000.0, 2000.0);
    assertThat(first).extracting(ResultsChart.Bar::error).containsExactly(300.0, 100.0);
    assertThat((double) first.get(0).box().height / first.get(1).box().height).isCloseTo(1.5, within(0.02));
    assertThat(panels.get(0).unit()).isEqualTo("ns/op");

    List<ResultsChart.Bar> sql = panels.get(2).bars();
    assertThat(sql).extracting(ResultsChart.Bar::contender).containsExactly("@Idempotent",
        "@Idempotent, transaction-scoped", "hand-written", "minimal two-commit floor", "Camel");
    assertThat(sql).extracting(ResultsChart.Bar::score).containsExactly(380.0, 270.0, 370.0, 330.0, 300.0);
    assertThat(panels.get(3).bars()).isEmpty(); // no SQL replay in this run: the panel says so, no bar

    // the pixels: each bar filled in its contender's colour up to its score, and nothing of it above
    assertThat(colourInside(image, first.get(0).box())).isEqualTo(ResultsChart.OURS);
    assertThat(colourInside(image, first.get(1).box())).isEqualTo(ResultsChart.FLOOR);
    assertThat(colourInside(image, sql.get(1).box())).isEqualTo(ResultsChart.OURS_SCOPED);
    assertThat(colourInside(image, sql.get(3).box())).isEqualTo(ResultsChart.MINIMAL_FLOOR);
    assertThat(colourInside(image, sql.get(4).box())).isEqualTo(ResultsChart.CAMEL);
    Rectangle ours = first.get(0).box();
    assertThat(new Color(image.getRGB(ours.x + 2, ours.y - 3))).isNotEqualTo(ResultsChart.OURS);
    // the whisker: dark at the bar's centre just above its top (it reaches score + error, 10 % higher)
    Color whisker = new Color(image.getRGB(ours.x + ours.width / 2, ours.y - 4));
    assertThat(whisker.getRed() + whisker.getGreen() + whisker.getBlue()).isLessThan(240);
    Rectangle floor = first.get(1).box();
    assertThat(new Color(image.getRGB(floor.x + floor.width / 2, ours.y - 4))).isNotEqualTo(whisker);
  }

  private static Color colourInside(BufferedImage image, Rectangle box) {
    return new Color(image.getRGB(box.x + 3, box.y + box.height - 3));
  }

  @Test
  void chart_takesEachResultFromTheLastFileThatHasIt_andWritesAPng() throws IOException {
    Path full = run();
    Path rerun = write("rerun.json",
        result("InMemoryBenchmark.firstCall", "\"impl\": \"idempotent\"", 2400, 48, "ns/op", 1700));
    Path png = dir.resolve("chart.png");

    ResultsChart.main(new String[] {png.toString(), full.toString(), rerun.toString()});

    ResultsChart chart = new ResultsChart(ResultsChart.read(List.of(full, rerun)));
    chart.draw();
    assertThat(chart.panels().get(0).bars()).extracting(ResultsChart.Bar::score).containsExactly(2400.0, 2000.0);
    BufferedImage read = ImageIO.read(png.toFile());
    assertThat(read.getWidth()).isEqualTo(40 + 2 * ResultsChart.PANEL_WIDTH);
    assertThat(colourInside(read, chart.panels().get(0).bars().get(0).box())).isEqualTo(ResultsChart.OURS);
  }

  @Test
  void table_givesEachGoalItsRatio_errorAndVerdict() throws IOException {
    Path json = run();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream saved = System.out;
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      ResultsTable.main(new String[] {json.toString()});
    } finally {
      System.setOut(saved);
    }
    String md = bytes.toString(StandardCharsets.UTF_8);

    // 3000 ± 300 over 2000 ± 100: 1.5 × √(0.1² + 0.05²) = 0.17; the first call's goal is 1.3, which even
    // 1.50 - 0.17 misses; its allocation, 1.5, meets its goal of 1.5
    assertThat(md).contains("| 1 in memory | firstCall: @Idempotent (Caffeine) / hand-written | 1.50 ± 0.17 | ≤ 1.3"
        + " | **missed** | 1.50 ± 0.00 | ≤ 1.5 | met |");
    // 300 ± 9 over 250 ± 5: 1.2 ± 0.04; 560 / 432 B = 1.30
    assertThat(md).contains("| 1 in memory | replay: @Idempotent (Caffeine) / hand-written | 1.20 ± 0.04 | ≤ 1.5"
        + " | met | 1.30 ± 0.00 | ≤ 1.5 | met |");
    assertThat(md).contains("| 2 SQL postgres | firstCall: @Idempotent / Camel add + confirm | 1.27 ± 0.08 | ≤ 1.15"
        + " | **missed** |");
  }
}
