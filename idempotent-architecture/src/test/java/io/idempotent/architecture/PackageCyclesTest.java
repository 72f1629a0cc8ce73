package io.idempotent.architecture;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import org.junit.jupiter.api.Test;

/**
 * The packages below {@code io.idempotent} of the published modules depend on each other without a cycle
 * (docs/DESIGN.md, "API surface"): the SPI on no internal package that depends back on it, the engine on
 * the SPI, the stores on both.
 */
class PackageCyclesTest {

  @Test
  void packagesBelowTheRoot_ofThePublishedModules_areFreeOfCycles() {
    JavaClasses published = ProjectModule.mainClasses().that(DescribedPredicate.describe(
        "in a published module", (JavaClass c) -> !ProjectModule.EXAMPLES.holds(c)));
    slices().matching("io.idempotent.(**)").should().beFreeOfCycles().check(published);
  }
}
