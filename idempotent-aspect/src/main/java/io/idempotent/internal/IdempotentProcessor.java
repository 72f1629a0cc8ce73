package io.idempotent.internal;

import io.idempotent.IdempotencyConfigurationException;
import io.idempotent.Idempotent;
import io.idempotent.OnInProgress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.ProcessingEnvironment;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;

/**
 * Checks every {@link Idempotent} method while javac or ajc compiles it, with the rules {@link MethodPlan}
 * applies when the method is first called or {@link io.idempotent.runtime.Idempotency#validate validated}: the
 * expressions parse and resolve against the declared parameter types ({@link ExpressionParser} over
 * {@link ModelTypes}), the durations parse and keep {@link DurationLimits}, the store name is one, the
 * fingerprinted arguments and the result are values. It also refuses to let javac compile an
 * annotated method that no weaver will see: the aspect would never run.
 *
 * <p>Found through {@code META-INF/services} whenever idempotent-aspect is on the compile class path
 * (javac from JDK 23 on runs such processors only with {@code -proc:full}). Option {@code
 * -Aidempotent.weaving=post-compile} (or {@code load-time}) says that ajc weaves the compiled classes
 * afterwards. Lease longer than the TTL and a wait timeout without {@code onInProgress = WAIT} are
 * warnings; everything else is an error.
 */
public final class IdempotentProcessor extends AbstractProcessor {

  static final String WEAVING_OPTION = "idempotent.weaving";

  /**
   * The README's primary build, shortened: javac keeps compiling (with this processor among its processors),
   * then ajc weaves its classes in place. docs/BUILDS.md holds the others.
   */
  static final String WEAVE_SNIPPET = """
        <plugin>
          <artifactId>maven-compiler-plugin</artifactId>
          <configuration>
            <compilerArgs><arg>-Aidempotent.weaving=post-compile</arg></compilerArgs>
          </configuration>
        </plugin>
        <plugin>
          <groupId>dev.aspectj</groupId>
          <artifactId>aspectj-maven-plugin</artifactId>
          <configuration>
            <complianceLevel>17</complianceLevel>
            <aspectLibraries>
              <aspectLibrary><groupId>io.idempotent</groupId><artifactId>idempotent-aspect</artifactId></aspectLibrary>
            </aspectLibraries>
            <forceAjcCompile>true</forceAjcCompile>
            <sources/>
            <testSources/>
          </configuration>
          <executions>
            <execution>
              <id>weave-classes</id><phase>process-classes</phase><goals><goal>compile</goal></goals>
              <configuration><weaveDirectories><weaveDirectory>${project.build.outputDirectory}</weaveDirectory></weaveDirectories></configuration>
            </execution>
            <execution>
              <id>weave-test-classes</id><phase>process-test-classes</phase><goals><goal>test-compile</goal></goals>
              <configuration><weaveDirectories><weaveDirectory>${project.build.testOutputDirectory}</weaveDirectory></weaveDirectories></configuration>
            </execution>
          </executions>
        </plugin>
      """;

  private ModelTypes model;
  /** Whether ajc runs this processor, and so weaves what it compiles. */
  private boolean ajc;
  /** Whether the option says a weaving step follows; null when the option is not set. */
  private String weaving;
  private boolean snippetShown;

  @Override
  public synchronized void init(ProcessingEnvironment env) {
    super.init(env);
    model = new ModelTypes(env.getElementUtils(), env.getTypeUtils());
    // ajc runs processors through its own copy of the Eclipse compiler, whose classes it relocates
    ajc = env.getClass().getName().startsWith("org.aspectj.")
        || env.getFiler().getClass().getName().startsWith("org.aspectj.");
    weaving = env.getOptions().get(WEAVING_OPTION);
    if (weaving != null && !weaving.equals("post-compile") && !weaving.equals("load-time")) {
      env.getMessager().printMessage(Diagnostic.Kind.ERROR, "-A" + WEAVING_OPTION + "=" + weaving
          + " is not a weaving step: write -A" + WEAVING_OPTION + "=post-compile when ajc weaves the compiled classes"
          + " (binary weaving), or load-time when the AspectJ agent weaves them as they load");
    }
  }

  /**
   * Every annotation, though only {@link Idempotent} is checked and none is claimed: so that javac's
   * {@code -Xlint:processing} does not list the others as annotations no processor supports.
   */
  @Override
  public Set<String> getSupportedAnnotationTypes() {
    return Set.of("*");
  }

  @Override
  public Set<String> getSupportedOptions() {
    return Set.of(WEAVING_OPTION);
  }

  @Override
  public SourceVersion getSupportedSourceVersion() {
    return SourceVersion.latestSupported();
  }

  @Override
  public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
    TypeElement idempotent = processingEnv.getElementUtils().getTypeElement(Idempotent.class.getName());
    if (idempotent == null) {
      return false;
    }
    for (Element e : round.getElementsAnnotatedWith(idempotent)) {
      if (e.getKind() == ElementKind.METHOD) {
        try {
          new MethodCheck((ExecutableElement) e, mirror(e, idempotent)).run();
        } catch (RuntimeException x) {
          // a compiler's model may fail where javac's does not: the build goes on, validate still checks
          processingEnv.getMessager().printMessage(Diagnostic.Kind.WARNING, "The compile-time check of @Idempotent"
              + " could not finish for this method (" + x + "); Idempotency.validate checks it at run time", e);
        }
      }
    }
    return false;
  }

  private static AnnotationMirror mirror(Element e, TypeElement annotation) {
    for (AnnotationMirror m : e.getAnnotationMirrors()) {
      if (m.getAnnotationType().asElement().equals(annotation)) {
        return m;
      }
    }
    return null;
  }

  /** The checks of one annotated method; each problem is reported where it is written. */
  private final class MethodCheck {
    private final ExecutableElement method;
    private final AnnotationMirror mirror;
    private final Idempotent a;
    private final String description;

    MethodCheck(ExecutableElement method, AnnotationMirror mirror) {
      this.method = method;
      this.mirror = mirror;
      this.a = method.getAnnotation(Idempotent.class);
      this.description = describe(method);
    }

    void run() {
      for (VariableElement p : method.getParameters()) {
        if (ModelTypes.unresolved(p.asType())) {
          return; // the compiler reports the missing type; a later round sees it if a processor makes it
        }
      }
      checkWeaving();
      ExpressionParser.Parameters<TypeMirror> parameters = parameters();
      expression(a.key(), "key", parameters, "key");
      if (!a.scope().isBlank()) {
        expression(a.scope(), "scope", parameters, "scope");
      }
      payload(parameters);
      Duration ttl = duration("ttl", a.ttl(), DurationLimits::ttl);
      Duration lease = duration("lease", a.lease(), DurationLimits::lease);
      Duration wait = duration("waitTimeout", a.waitTimeout(), DurationLimits::waitTimeout);
      duration("maxRunTime", a.maxRunTime(), DurationLimits::ttl);
      if (ttl != null && lease != null && lease.compareTo(ttl) > 0) {
        report(Diagnostic.Kind.WARNING, "lease", "The lease of " + description + " (" + lease + ") is longer than its"
            + " ttl (" + ttl + "): after a crash the key stays locked longer than a completed outcome is kept. Make"
            + " the lease at most the ttl");
      }
      if (wait != null && a.onInProgress() != OnInProgress.WAIT) {
        report(Diagnostic.Kind.WARNING, "waitTimeout", "The waitTimeout of " + description + " has no effect with"
            + " onInProgress = " + a.onInProgress() + ": set onInProgress = OnInProgress.WAIT or remove waitTimeout");
      }
      String storeProblem = MethodPlan.storeNameProblem(a.store());
      if (storeProblem != null) {
        error("store", "@Idempotent(store) of " + description + ": " + storeProblem);
      }
      result();
    }

    private void checkWeaving() {
      if (method.getModifiers().contains(Modifier.ABSTRACT)) {
        error(null, description + " is abstract: @Idempotent takes effect on a method with a body, where the aspect"
            + " is woven; annotate the implementing method instead");
        return;
      }
      if (ajc || weaving != null) {
        return;
      }
      String message = description + " is compiled by javac, which does not weave the idempotency aspect: its calls"
          + " would run unprotected. Keep javac and let ajc weave its classes afterwards";
      if (snippetShown) {
        message += " (configuration in the first such error). ";
      } else {
        message += " (aspectj-maven-plugin, the README's build section):\n" + WEAVE_SNIPPET;
        snippetShown = true;
      }
      error(null, message + "-A" + WEAVING_OPTION + "=post-compile tells this check that ajc weaves the compiled"
          + " classes, also where aspectj-maven-plugin compiles the sources again after javac; -A" + WEAVING_OPTION
          + "=load-time that the AspectJ agent weaves them as they load (docs/BUILDS.md)");
    }

    private ExpressionParser.Parameters<TypeMirror> parameters() {
      List<String> names = new ArrayList<>();
      List<TypeMirror> types = new ArrayList<>();
      for (VariableElement p : method.getParameters()) {
        names.add(p.getSimpleName().toString());
        types.add(model.erase(p.asType()));
      }
      return new ExpressionParser.Parameters<>(description, names, types, true);
    }

    private ExpressionParser.Parsed<TypeMirror> expression(
        String source, String attribute, ExpressionParser.Parameters<TypeMirror> parameters, String reportedOn) {
      try {
        return ExpressionParser.check(source, attribute, parameters, model);
      } catch (IdempotencyConfigurationException e) {
        error(reportedOn, e.getMessage());
        return null;
      }
    }

    private void payload(ExpressionParser.Parameters<TypeMirror> parameters) {
      if (a.payload().length > 0) {
        List<? extends AnnotationValue> values = arrayValue("payload");
        for (int i = 0; i < a.payload().length; i++) {
          AnnotationValue at = values != null && i < values.size() ? values.get(i) : value("payload");
          ExpressionParser.Parsed<TypeMirror> parsed;
          try {
            parsed = ExpressionParser.check(a.payload()[i], "payload", parameters, model);
          } catch (IdempotencyConfigurationException e) {
            report(Diagnostic.Kind.ERROR, at, e.getMessage());
            continue;
          }
          TypeMirror type = parsed.singlePathType();
          String refusal = type == null ? null : refusal(type, true);
          if (refusal != null && a.checkPayload()) {
            report(Diagnostic.Kind.ERROR, at, MethodPlan.payloadProblem(description,
                List.of("@Idempotent(payload = \"" + a.payload()[i] + "\") " + refusal)));
          }
        }
        return;
      }
      if (!a.checkPayload()) {
        return;
      }
      for (int i = 0; i < parameters.types().size(); i++) {
        TypeMirror type = parameters.types().get(i);
        String refusal = refusal(type, false);
        if (refusal != null) {
          processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, MethodPlan.payloadProblem(description,
              List.of("parameter '" + parameters.names().get(i) + "' " + refusal)), method.getParameters().get(i));
        }
      }
    }

    /** As MethodPlan's refusal: why a value declared as {@code type} cannot be part of a payload, or null. */
    private String refusal(TypeMirror type, boolean named) {
      String infrastructure = model.infrastructure(type);
      if (infrastructure != null) {
        return named ? MethodPlan.namedInfrastructure(model.name(type), infrastructure) : null;
      }
      String none = model.noValueIdentity(type);
      if (none == null) {
        none = model.declaredRefusal(type);
      }
      return none == null ? null : MethodPlan.refused(none);
    }

    private Duration duration(String attribute, String text, BiFunction<Duration, String, Duration> limits) {
      try {
        Duration d = CallPlan.duration(text, attribute, description);
        return limits.apply(d, "The " + attribute + " of " + description);
      } catch (IdempotencyConfigurationException e) {
        error(attribute, e.getMessage());
        return null;
      }
    }

    /** The result shape rules of {@link CallPlan} and the refusal of {@link MethodPlan#unrecordable}. */
    private void result() {
      TypeMirror declared = method.getReturnType();
      if (declared.getKind() == TypeKind.VOID || ModelTypes.unresolved(declared)) {
        return;
      }
      if (declared.getKind().isPrimitive()) {
        if (a.onInProgress() == OnInProgress.SKIP) {
          error("onInProgress", CallPlan.skipOnPrimitive(description));
        }
        return;
      }
      TypeMirror result = declared;
      if (model.isSubtype(declared, java.util.concurrent.CompletionStage.class)) {
        if (!model.isSupertypeOf(declared, java.util.concurrent.CompletableFuture.class)) {
          error(null, CallPlan.unsupportedStage(description, model.name(model.erase(declared))));
          return;
        }
        result = model.firstTypeArgument(declared);
      }
      if (model.is(model.erase(result), Void.class)) {
        return;
      }
      TypeMirror raw = model.erase(result);
      if (model.is(raw, java.util.Optional.class)) {
        raw = model.erase(model.firstTypeArgument(result));
      }
      String why = model.unrecordable(raw);
      if (why != null) {
        error(null, MethodPlan.unrecordableResult(description, result.toString(), why));
      }
    }

    private void error(String attribute, String message) {
      report(Diagnostic.Kind.ERROR, attribute, message);
    }

    private void report(Diagnostic.Kind kind, String attribute, String message) {
      report(kind, attribute == null ? null : value(attribute), message);
    }

    private void report(Diagnostic.Kind kind, AnnotationValue value, String message) {
      if (value != null) {
        processingEnv.getMessager().printMessage(kind, message, method, mirror, value);
      } else {
        processingEnv.getMessager().printMessage(kind, message, method, mirror);
      }
    }

    /** The value written for {@code attribute}, or null when it takes its default. */
    private AnnotationValue value(String attribute) {
      if (mirror == null) {
        return null;
      }
      for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e : mirror.getElementValues().entrySet()) {
        if (e.getKey().getSimpleName().contentEquals(attribute)) {
          return e.getValue();
        }
      }
      return null;
    }

    private List<? extends AnnotationValue> arrayValue(String attribute) {
      AnnotationValue v = value(attribute);
      if (v != null && v.getValue() instanceof List<?> list) {
        List<AnnotationValue> out = new ArrayList<>();
        for (Object o : list) {
          out.add((AnnotationValue) o);
        }
        return out;
      }
      return null;
    }
  }

  /** As {@link MethodSignatureInfo#describe}: binary class name, method name, simple erased parameter types. */
  private String describe(ExecutableElement method) {
    TypeElement owner = (TypeElement) method.getEnclosingElement();
    StringBuilder sb = new StringBuilder(processingEnv.getElementUtils().getBinaryName(owner))
        .append('.').append(method.getSimpleName()).append('(');
    List<? extends VariableElement> ps = method.getParameters();
    for (int i = 0; i < ps.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(model.simpleName(model.erase(ps.get(i).asType())));
    }
    return sb.append(')').toString();
  }
}
