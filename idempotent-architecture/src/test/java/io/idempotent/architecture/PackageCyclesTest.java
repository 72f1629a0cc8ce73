package io.idempotent.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.Source;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The main code of the published modules depends on itself without a cycle (docs/DESIGN.md, "API
 * surface"): no two packages and no two source files depend on each other, even through others. The
 * packages form layers: the annotation and its types ({@code io.idempotent}) on text helpers only; the
 * SPI on those; the engine ({@code io.idempotent.internal}) on the SPI; the entry points
 * ({@code io.idempotent.runtime}) on the engine; the stores and integrations on what they need of these.
 */
class PackageCyclesTest {

  private static final JavaClasses PUBLISHED = ProjectModule.mainClasses().that(DescribedPredicate.describe(
      "in a published module", (JavaClass c) -> !ProjectModule.EXAMPLES.holds(c)));

  @Test
  void packages_ofThePublishedModules_areFreeOfCycles() {
    slices().assignedFrom(BY_PACKAGE).should().beFreeOfCycles().check(PUBLISHED);
  }

  @Test
  void sourceFiles_ofThePublishedModules_areFreeOfCycles() {
    slices().assignedFrom(BY_SOURCE_FILE).should().beFreeOfCycles().check(PUBLISHED);
  }

  /** One slice per package, {@code io.idempotent} itself included. */
  static final SliceAssignment BY_PACKAGE = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass c) {
      return SliceIdentifier.of(c.getPackageName());
    }

    @Override
    public String getDescription() {
      return "packages";
    }
  };

  /**
   * One slice per source file: a class with its nested and anonymous classes, and any other type its file
   * declares, as the class file's {@code SourceFile} attribute names it.
   */
  static final SliceAssignment BY_SOURCE_FILE = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass c) {
      String file = c.getSource().flatMap(Source::getFileName).orElseGet(() -> c.getSimpleName() + ".java");
      return SliceIdentifier.of(c.getPackageName().replace('.', '/') + "/" + file);
    }

    @Override
    public String getDescription() {
      return "source files";
    }
  };
}
