package io.idempotent.builds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemplateTest {

  private static final String README = String.join("\n",
      "# Shop",
      "",
      "<!-- snippet: dependencies -->",
      "```xml",
      "<dependencyManagement>",
      "  <dependencies>",
      "    <dependency>",
      "      <groupId>io.idempotent</groupId>",
      "      <artifactId>idempotent-bom</artifactId>",
      "      <version>1.2.3</version>",
      "    </dependency>",
      "  </dependencies>",
      "</dependencyManagement>",
      "",
      "<dependencies>",
      "  <dependency>",
      "    <artifactId>idempotent-aspect</artifactId>",
      "  </dependency>",
      "</dependencies>",
      "```",
      "",
      "Then weave:",
      "",
      "<!-- snippet: weave -->",
      "",
      "```xml",
      "<build>",
      "  <plugins>",
      "    <plugin>",
      "      <annotationProcessorPaths>",
      "        <!-- your annotation processors (Lombok, MapStruct, ...): their <path> elements here -->",
      "        <path><artifactId>idempotent-aspect</artifactId></path>",
      "      </annotationProcessorPaths>",
      "    </plugin>",
      "  </plugins>",
      "</build>",
      "```",
      "");

  private final Snippets snippets = Snippets.parse("README.md", README);

  @Test
  void aWholeSnippetTakesTheMarkersIndentation() {
    String pom = Template.render("pom.xml", "<project>\n  <!-- README snippet: weave -->\n</project>\n", snippets,
        null);

    assertThat(pom).isEqualTo(String.join("\n",
        "<project>",
        "  <build>",
        "    <plugins>",
        "      <plugin>",
        "        <annotationProcessorPaths>",
        "          <!-- your annotation processors (Lombok, MapStruct, ...): their <path> elements here -->",
        "          <path><artifactId>idempotent-aspect</artifactId></path>",
        "        </annotationProcessorPaths>",
        "      </plugin>",
        "    </plugins>",
        "  </build>",
        "</project>",
        ""));
  }

  @Test
  void theProcessorPlaceholderBecomesTheSamplesPaths() {
    String pom = Template.render("pom.xml", "<plugins>\n  <!-- README snippet: weave build/plugins/* -->\n</plugins>",
        snippets, List.of("<path>", "  <artifactId>lombok</artifactId>", "</path>"));

    assertThat(pom).isEqualTo(String.join("\n",
        "<plugins>",
        "  <plugin>",
        "    <annotationProcessorPaths>",
        "      <path>",
        "        <artifactId>lombok</artifactId>",
        "      </path>",
        "      <path><artifactId>idempotent-aspect</artifactId></path>",
        "    </annotationProcessorPaths>",
        "  </plugin>",
        "</plugins>",
        ""));
  }

  @Test
  void partsOfASnippetAreItsElementsOrTheirInsides() {
    assertThat(snippets.lines("dependencies", "dependencyManagement"))
        .startsWith("<dependencyManagement>").endsWith("</dependencyManagement>").hasSize(9);
    assertThat(snippets.lines("dependencies", "dependencies/*"))
        .containsExactly("  <dependency>", "    <artifactId>idempotent-aspect</artifactId>", "  </dependency>");
    assertThat(snippets.names()).containsExactly("dependencies", "weave");
  }

  @Test
  void aMissingSnippetFailsNamingIt() {
    assertThatThrownBy(() -> Template.render("pom.xml", "<project>\n  <!-- README snippet: javac-then-ajc -->\n",
        snippets, null))
        .isInstanceOf(SnippetException.class)
        .hasMessageContaining("pom.xml:2")
        .hasMessageContaining("no snippet 'javac-then-ajc'")
        .hasMessageContaining("[dependencies, weave]");
  }

  @Test
  void aMissingElementOfASnippetFailsNamingIt() {
    assertThatThrownBy(() -> snippets.lines("weave", "build/pluginManagement/*"))
        .isInstanceOf(SnippetException.class)
        .hasMessageContaining("snippet 'weave'")
        .hasMessageContaining("no element build/pluginManagement");
  }

  @Test
  void processorsWithoutAPlaceholderInTheSnippetFail() {
    Snippets withoutPlaceholder = Snippets.parse("README.md",
        README.replace("        <!-- your annotation processors (Lombok, MapStruct, ...): their <path> elements here -->\n",
            ""));

    assertThatThrownBy(() -> Template.render("pom.xml", "<!-- README snippet: weave -->", withoutPlaceholder,
        List.of("<path/>")))
        .isInstanceOf(SnippetException.class)
        .hasMessageContaining("placeholder line");
  }

  @Test
  void aMarkerThatIsNotAloneOnItsLineFails() {
    assertThatThrownBy(() -> Template.render("pom.xml", "<build><!-- README snippet: weave --></build>", snippets,
        null))
        .isInstanceOf(SnippetException.class)
        .hasMessageContaining("pom.xml:1");
  }

  @Test
  void aMarkerWithoutACodeBlockFails() {
    assertThatThrownBy(() -> Snippets.parse("README.md", "<!-- snippet: weave -->\nSome words.\n"))
        .isInstanceOf(SnippetException.class)
        .hasMessageContaining("README.md:1")
        .hasMessageContaining("'weave'");
  }

  @Test
  void theBomVersionMustBeTheBuilds() {
    SampleProjects.checkBomVersion("README.md", snippets, "1.2.3");

    assertThatThrownBy(() -> SampleProjects.checkBomVersion("README.md", snippets, "1.3.0"))
        .isInstanceOf(SnippetException.class)
        .hasMessageContaining("1.3.0");
  }

  @Test
  void aSampleIsWrittenWithItsPomRenderedAndItsProcessorFileLeftOut(@TempDir Path dir) throws IOException {
    Path sample = dir.resolve("in/shop");
    Files.createDirectories(sample.resolve("src/main/java"));
    Files.writeString(sample.resolve("pom.xml"), "<project>\n  <!-- README snippet: weave -->\n</project>\n");
    Files.writeString(sample.resolve(SampleProjects.PROCESSOR_PATHS), "<path>lombok</path>\n");
    Files.writeString(sample.resolve("src/main/java/Shop.java"), "class Shop {}\n");

    SampleProjects.write(sample, dir.resolve("out/shop"), snippets);

    assertThat(Files.readString(dir.resolve("out/shop/pom.xml"), StandardCharsets.UTF_8))
        .contains("          <path>lombok</path>\n          <path><artifactId>idempotent-aspect</artifactId></path>")
        .doesNotContain("your annotation processors");
    assertThat(dir.resolve("out/shop/src/main/java/Shop.java")).hasContent("class Shop {}");
    assertThat(dir.resolve("out/shop/" + SampleProjects.PROCESSOR_PATHS)).doesNotExist();
  }

  @Test
  void javaSource_theMarkerLineBecomesTheSnippetsCode_indentedAsTheMarker() {
    Snippets snippets = Snippets.parse("README.md", String.join("\n",
        "<!-- snippet: calls -->",
        "```java",
        "payments.charge(\"order-42\", 1999);",
        "if (ok) {",
        "  done();",
        "}",
        "```"));
    String source = String.join("\n",
        "class T {",
        "  void run() {",
        "    // README snippet: calls",
        "  }",
        "}");

    assertThat(Template.renderSource("T.java", source, snippets)).isEqualTo(String.join("\n",
        "class T {",
        "  void run() {",
        "    payments.charge(\"order-42\", 1999);",
        "    if (ok) {",
        "      done();",
        "    }",
        "  }",
        "}", ""));
    assertThatThrownBy(() -> Template.renderSource("T.java", "// README snippet: other", snippets))
        .isInstanceOf(SnippetException.class).hasMessageContaining("T.java:1").hasMessageContaining("'other'");
  }

  @Test
  void snippetsComeFromTheReadmeTheDocsAndTheModulesReadmes(@TempDir Path root) throws IOException {
    Files.createDirectories(root.resolve("docs"));
    Files.createDirectories(root.resolve("shop-http"));
    Files.createDirectories(root.resolve("shop-none"));
    Files.writeString(root.resolve("README.md"), block("annotate"));
    Files.writeString(root.resolve("docs/HTTP.md"), block("http-filter"));
    Files.writeString(root.resolve("docs/notes.txt"), block("not-a-page"));
    Files.writeString(root.resolve("shop-http/README.md"), block("http-client"));

    Map<String, String> texts = SampleProjects.documents(root.resolve("README.md"));
    Snippets snippets = Snippets.parse(texts);

    assertThat(texts.keySet()).containsExactly("README.md", "docs/HTTP.md", "shop-http/README.md");
    assertThat(snippets.names()).containsExactly("annotate", "http-filter", "http-client");
    assertThat(snippets.lines("http-client", "")).containsExactly("run(\"http-client\");");
  }

  @Test
  void aNameMarkedInTwoFilesFailsNamingBoth() {
    Map<String, String> texts = new LinkedHashMap<>();
    texts.put("README.md", block("annotate") + block("configure"));
    texts.put("docs/USAGE.md", block("configure"));

    assertThatThrownBy(() -> Snippets.parse(texts))
        .isInstanceOf(SnippetException.class)
        .hasMessageContaining("'configure'")
        .hasMessageContaining("README.md")
        .hasMessageContaining("docs/USAGE.md");
  }

  @Test
  void anUnmarkedJavaBlockFails_inTheReadmeAsInTheDocs() {
    Map<String, String> texts = new LinkedHashMap<>();
    texts.put("README.md", "# Shop\n\n```java\n@Idempotent void pay() {}\n```\n");
    texts.put("docs/USAGE.md", block("usage-call") + "```xml\n<a/>\n```\n\n```java\nrun();\n```\n");
    Snippets snippets = Snippets.parse(texts);

    assertThat(snippets.unmarkedJava()).containsExactly("README.md:3", "docs/USAGE.md:10");
    assertThatThrownBy(() -> SampleProjects.checkJavaMarked(snippets))
        .isInstanceOf(SnippetException.class)
        .hasMessageContaining("docs/USAGE.md:10")
        .hasMessageContaining("README.md:3");
  }

  @Test
  void aSnippetNoSampleAsksForIsUnused() {
    Snippets snippets = Snippets.parse(Map.of("docs/USAGE.md", block("usage-call") + block("usage-codec")));

    Template.renderSource("T.java", "// README snippet: usage-call", snippets);

    assertThat(snippets.unused()).containsExactly("usage-codec (docs/USAGE.md)");
  }

  private static String block(String name) {
    return "<!-- snippet: " + name + " -->\n```java\nrun(\"" + name + "\");\n```\n\n";
  }
}
