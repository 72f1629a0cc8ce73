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
 * surface"): no two source files depend on each other, even through others, and the packages below
 * {@code io.idempotent} depend on each other only one way — the SPI on no internal package that depends
 * back on it, the engine on the SPI, the stores on both.
 */
class PackageCyclesTest {

  private static final JavaClasses PUBLISHED = ProjectModule.mainClasses().that(DescribedPredicate.describe(
      "in a published module", (JavaClass c) -> !ProjectModule.EXAMPLES.holds(c)));

  @Test
  void packagesBelowTheRoot_ofThePublishedModules_areFreeOfCycles() {
    slices().matching("io.idempotent.(**)").should().beFreeOfCycles().check(PUBLISHED);
  }

  @Test
  void sourceFiles_ofThePublishedModules_areFreeOfCycles() {
    slices().assignedFrom(BY_SOURCE_FILE).should().beFreeOfCycles().check(PUBLISHED);
  }

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
