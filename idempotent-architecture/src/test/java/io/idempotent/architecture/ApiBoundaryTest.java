package io.idempotent.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.idempotent.internal.StoredKeys;
import io.idempotent.internal.text.Hashing;
import java.lang.module.ModuleDescriptor;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The boundary between the API and the internals (docs/DESIGN.md, "API surface"): what idempotent-aspect
 * exports, that no exported signature mentions an internal type, and which internal types the other
 * modules' main code may use.
 */
class ApiBoundaryTest {

  private static final String INTERNAL = "io.idempotent.internal";

  /**
   * The internal types each module's main code may use, and no module may use any other: the redis
   * store writes keys, owners and fingerprints as their exact UTF-8 ({@code Hashing.exactUtf8}); the
   * contract kit composes the stored key of a call to look at records directly. idempotent-aspect's
   * descriptor exports each internal package to exactly the modules using a type of it.
   */
  private static final Map<ProjectModule, Set<Class<?>>> INTERNALS_ALLOWED = Map.of(
      ProjectModule.REDIS, Set.of(Hashing.class),
      ProjectModule.TESTKIT, Set.of(StoredKeys.class));

  @Test
  void aspectModule_exportsTheApiToAll_andItsInternalsOnlyToTheModulesAllowedThem() {
    ModuleDescriptor d = ProjectModule.ASPECT.descriptor();
    assertThat(d.name()).isEqualTo("io.idempotent");
    assertThat(d.isAutomatic()).as("idempotent-aspect has a module-info").isFalse();
    Map<String, Set<String>> exports = new TreeMap<>();
    d.exports().forEach(e -> exports.put(e.source(), e.targets()));
    assertThat(exports).isEqualTo(Map.of(
        "io.idempotent", Set.of(),
        "io.idempotent.spi", Set.of(),
        "io.idempotent.runtime", Set.of(),
        "io.idempotent.layered", Set.of(),
        INTERNAL, Set.of(ProjectModule.TESTKIT.moduleName),
        INTERNAL + ".text", Set.of(ProjectModule.REDIS.moduleName)));
    INTERNALS_ALLOWED.forEach((module, types) -> types.forEach(t -> assertThat(exports.get(t.getPackageName()))
        .as("the packages exported to " + module.moduleName).contains(module.moduleName)));
    assertThat(d.opens()).isEmpty();
    assertThat(d.packages()).as("every package of the module is in its descriptor")
        .isEqualTo(ProjectModule.ASPECT.packages());
  }

  @Test
  void modulesWithoutADescriptor_areNamedByTheirManifest() {
    for (ProjectModule m : ProjectModule.values()) {
      assertThat(m.descriptor().name()).as(m.toString()).isEqualTo(m.moduleName);
    }
  }

  @Test
  void exportedSignatures_mentionNoInternalType() {
    Set<String> api = new HashSet<>();
    for (ProjectModule m : List.of(ProjectModule.ASPECT, ProjectModule.CAFFEINE, ProjectModule.JDBI,
        ProjectModule.REDIS, ProjectModule.HTTP, ProjectModule.MICROMETER, ProjectModule.TESTKIT,
        ProjectModule.SPRING)) {
      api.addAll(m.exportedPackages());
    }
    classes().that(ApiSurface.exposedIn(api)).should(exposeNoTypeOf(INTERNAL))
        .check(ProjectModule.mainClasses());
  }

  @Test
  void otherModules_useOnlyTheInternalTypesAllowedThem() {
    for (ProjectModule m : ProjectModule.values()) {
      if (m == ProjectModule.ASPECT) {
        continue;
      }
      Class<?>[] allowed = INTERNALS_ALLOWED.getOrDefault(m, Set.of()).toArray(Class<?>[]::new);
      noClasses().that(m.classes())
          .should().dependOnClassesThat(resideInAPackage(INTERNAL + "..").and(not(belongToAnyOf(allowed))))
          .because("the internals are no API: a module gets at most what INTERNALS_ALLOWED names")
          .check(ProjectModule.mainClasses());
    }
  }

  /** No type in {@code pkg} in the class's declaration or the signature of a member others can reach. */
  private static ArchCondition<JavaClass> exposeNoTypeOf(String pkg) {
    return new ArchCondition<>("mention no type of " + pkg + " in a public or protected signature") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        Set<JavaType> declaration = new HashSet<>(c.getInterfaces());
        c.getSuperclass().ifPresent(declaration::add);
        declaration.addAll(c.getTypeParameters());
        for (JavaType t : declaration) {
          report(c, c.getFullName() + " declaration", t.getAllInvolvedRawTypes(), events);
        }
        for (JavaMember member : c.getMembers()) {
          if (ApiSurface.isExposed(member)) {
            Collection<JavaClass> types = member instanceof JavaField f
                ? f.getAllInvolvedRawTypes()
                : ((JavaCodeUnit) member).getAllInvolvedRawTypes();
            report(c, member.getFullName(), types, events);
          }
        }
      }

      private void report(JavaClass c, String where, Collection<JavaClass> types, ConditionEvents events) {
        for (JavaClass t : types) {
          if (t.getPackageName().equals(pkg) || t.getPackageName().startsWith(pkg + ".")) {
            events.add(SimpleConditionEvent.violated(c, where + " mentions " + t.getName()));
          }
        }
      }
    };
  }
}
