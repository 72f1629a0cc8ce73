package io.idempotent.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.ModuleElement;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * The declared types of a method being compiled, seen through {@code javax.lang.model} the way the
 * runtime sees them through reflection: every type erased, members looked up in the same order, and
 * the refusals of {@link ArgumentTypes}, {@link CanonicalEncoder#declaredRefusal} and {@link
 * MethodPlan#unrecordable} applied to the same lists of types. Used by {@link IdempotentProcessor}.
 */
final class ModelTypes implements ExpressionParser.Types<TypeMirror> {

  private final Elements elements;
  private final Types types;

  ModelTypes(Elements elements, Types types) {
    this.elements = elements;
    this.types = types;
  }

  /** The type as reflection sees it: erased. */
  TypeMirror erase(TypeMirror type) {
    return types.erasure(type);
  }

  /** The class or interface of a declared type, {@code Object} for an array, or null. */
  private TypeElement element(TypeMirror type) {
    if (type.getKind() == TypeKind.DECLARED) {
      return (TypeElement) ((DeclaredType) type).asElement();
    }
    return type.getKind() == TypeKind.ARRAY ? elements.getTypeElement("java.lang.Object") : null;
  }

  /**
   * The members {@code type} declares. ajc 1.9.25 (its Eclipse compiler) fails on {@code getEnclosedElements}
   * of a JDK class that has nested classes, such as {@code String}; the members it inherits and declares
   * are read there instead, keeping those it declares.
   */
  private List<? extends Element> members(TypeElement type) {
    try {
      return type.getEnclosedElements();
    } catch (RuntimeException e) {
      List<Element> own = new ArrayList<>();
      for (Element m : elements.getAllMembers(type)) {
        if (type.equals(m.getEnclosingElement())) {
          own.add(m);
        }
      }
      return own;
    }
  }

  private TypeElement superclass(TypeElement type) {
    TypeMirror s = type.getSuperclass();
    return s.getKind() == TypeKind.DECLARED ? (TypeElement) ((DeclaredType) s).asElement() : null;
  }

  private TypeElement known(Class<?> c) {
    return elements.getTypeElement(c.getCanonicalName());
  }

  private boolean isSubtype(TypeMirror type, TypeElement of) {
    return of != null && type.getKind() == TypeKind.DECLARED && types.isSubtype(erase(type), erase(of.asType()));
  }

  boolean is(TypeMirror type, Class<?> c) {
    TypeElement e = element(type);
    return type.getKind() == TypeKind.DECLARED && e.getQualifiedName().contentEquals(c.getCanonicalName());
  }

  boolean isSubtype(TypeMirror type, Class<?> c) {
    return isSubtype(type, known(c));
  }

  /** Whether {@code c} is a subtype of {@code type} (for {@code CompletableFuture} and a declared stage). */
  boolean isSupertypeOf(TypeMirror type, Class<?> c) {
    TypeElement e = known(c);
    return e != null && types.isSubtype(erase(e.asType()), erase(type));
  }

  /** The first type argument of a declared type, the upper bound of a wildcard, or {@code Object}. */
  TypeMirror firstTypeArgument(TypeMirror type) {
    if (type instanceof DeclaredType d && !d.getTypeArguments().isEmpty()) {
      TypeMirror arg = d.getTypeArguments().get(0);
      if (arg.getKind() == TypeKind.WILDCARD) {
        TypeMirror bound = ((javax.lang.model.type.WildcardType) arg).getExtendsBound();
        return bound == null ? known(Object.class).asType() : bound;
      }
      return arg;
    }
    return known(Object.class).asType();
  }

  @Override
  public String name(TypeMirror type) {
    return switch (type.getKind()) {
      case DECLARED -> elements.getBinaryName(element(type)).toString();
      case ARRAY -> name(((ArrayType) type).getComponentType()) + "[]";
      default -> type.toString();
    };
  }

  @Override
  public String simpleName(TypeMirror type) {
    return switch (type.getKind()) {
      case DECLARED -> element(type).getSimpleName().toString();
      case ARRAY -> simpleName(((ArrayType) type).getComponentType()) + "[]";
      default -> type.toString();
    };
  }

  @Override
  public boolean isArray(TypeMirror type) {
    return type.getKind() == TypeKind.ARRAY;
  }

  @Override
  public ExpressionParser.Property<TypeMirror> recordComponent(TypeMirror type, String name) {
    TypeElement e = type.getKind() == TypeKind.DECLARED ? element(type) : null;
    if (e != null && e.getKind().name().equals("RECORD")) {
      for (RecordComponentElement rc : e.getRecordComponents()) {
        if (rc.getSimpleName().contentEquals(name)) {
          return new ExpressionParser.Property<>(erase(rc.asType()), null);
        }
      }
    }
    return null;
  }

  @Override
  public ExpressionParser.Property<TypeMirror> noArgMethod(TypeMirror type, String name) {
    TypeElement start = element(type);
    if (start == null) {
      return null;
    }
    for (TypeElement c = start; c != null; c = superclass(c)) {
      for (ExecutableElement m : ElementFilter.methodsIn(members(c))) {
        if (isNoArgAccessor(m, name)) {
          return new ExpressionParser.Property<>(erase(m.getReturnType()), null);
        }
      }
    }
    // then the interfaces' public methods, theirs and their superinterfaces', as Class.getMethods lists them
    List<TypeElement> interfaces = new ArrayList<>();
    if (start.getKind().isInterface()) {
      interfaces.add(start);
    }
    for (TypeElement c = start; c != null; c = superclass(c)) {
      for (TypeMirror i : c.getInterfaces()) {
        interfaces.add((TypeElement) types.asElement(i));
      }
    }
    for (TypeElement i : interfaces) {
      for (TypeElement j : withSuperinterfaces(i)) {
        for (ExecutableElement m : ElementFilter.methodsIn(members(j))) {
          if (isNoArgAccessor(m, name) && !m.getModifiers().contains(Modifier.PRIVATE)) {
            return new ExpressionParser.Property<>(erase(m.getReturnType()), null);
          }
        }
      }
    }
    return null;
  }

  private static boolean isNoArgAccessor(ExecutableElement m, String name) {
    return m.getSimpleName().contentEquals(name) && m.getParameters().isEmpty()
        && m.getReturnType().getKind() != TypeKind.VOID && !m.getModifiers().contains(Modifier.STATIC);
  }

  private List<TypeElement> withSuperinterfaces(TypeElement i) {
    List<TypeElement> out = new ArrayList<>();
    Deque<TypeElement> todo = new ArrayDeque<>(List.of(i));
    Set<TypeElement> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      TypeElement t = todo.poll();
      if (seen.add(t)) {
        out.add(t);
        for (TypeMirror s : t.getInterfaces()) {
          todo.add((TypeElement) types.asElement(s));
        }
      }
    }
    return out;
  }

  @Override
  public ExpressionParser.Property<TypeMirror> field(TypeMirror type, String name) {
    if (type.getKind() != TypeKind.DECLARED) {
      return null; // an array has no fields to reflection, a primitive no members at all
    }
    for (TypeElement c = element(type); c != null; c = superclass(c)) {
      for (VariableElement f : ElementFilter.fieldsIn(members(c))) {
        if (f.getSimpleName().contentEquals(name) && !f.getModifiers().contains(Modifier.STATIC)) {
          return new ExpressionParser.Property<>(erase(f.asType()), null);
        }
      }
    }
    return null;
  }

  @Override
  public boolean isBoolean(TypeMirror type) {
    return type.getKind() == TypeKind.BOOLEAN || is(type, Boolean.class);
  }

  @Override
  public boolean decidedAtRuntime(TypeMirror type) {
    if (type.getKind() != TypeKind.DECLARED) {
      return false;
    }
    TypeElement e = element(type);
    return e.getKind().isInterface() || e.getModifiers().contains(Modifier.ABSTRACT) || is(type, Object.class);
  }

  @Override
  public boolean hasValueText(TypeMirror type) {
    if (type.getKind().isPrimitive()) {
      return true;
    }
    if (type.getKind() != TypeKind.DECLARED) {
      return false;
    }
    for (TypeElement c = element(type); c != null; c = superclass(c)) {
      for (ExecutableElement m : ElementFilter.methodsIn(members(c))) {
        if (m.getSimpleName().contentEquals("toString") && m.getParameters().isEmpty()
            && m.getModifiers().contains(Modifier.PUBLIC) && !m.getModifiers().contains(Modifier.STATIC)) {
          return !c.getQualifiedName().contentEquals("java.lang.Object");
        }
      }
    }
    return true;
  }

  /** As {@link ArgumentTypes#infrastructure}: the infrastructure type name {@code type} is or extends, or null. */
  String infrastructure(TypeMirror type) {
    if (type.getKind() != TypeKind.DECLARED) {
      return null;
    }
    Deque<TypeMirror> todo = new ArrayDeque<>(List.of(erase(type)));
    Set<String> seen = new HashSet<>();
    while (!todo.isEmpty()) {
      TypeMirror t = todo.poll();
      if (t.getKind() != TypeKind.DECLARED || !seen.add(name(t))) {
        continue;
      }
      if (ArgumentTypes.INFRASTRUCTURE.contains(name(t))) {
        return name(t);
      }
      for (TypeMirror s : types.directSupertypes(t)) {
        todo.add(erase(s));
      }
    }
    return null;
  }

  /** As {@link ArgumentTypes#noValueIdentity}, over the same list of types. */
  String noValueIdentity(TypeMirror type) {
    if (type.getKind() != TypeKind.DECLARED) {
      return null;
    }
    for (Class<?> c : ArgumentTypes.NO_VALUE_IDENTITY) {
      TypeElement e = known(c);
      if (isSubtype(type, e)) {
        return ArgumentTypes.noValue(name(type), is(type, c) ? null : c.getName());
      }
    }
    TypeElement e = element(type);
    if (e.getKind().isInterface() && ArgumentTypes.isFunctionType(
        e.getAnnotation(FunctionalInterface.class) != null, elements.getPackageOf(e).getQualifiedName().toString())) {
      return ArgumentTypes.functionType(name(type));
    }
    return null;
  }

  /** As {@link CanonicalEncoder#declaredRefusal}: why every value of the declared type would be refused. */
  String declaredRefusal(TypeMirror type) {
    if (type.getKind() != TypeKind.DECLARED) {
      return null;
    }
    TypeElement e = element(type);
    String kind = e.getKind().name();
    if (e.getKind().isInterface() || is(type, Object.class) || e.getModifiers().contains(Modifier.ABSTRACT)
        || kind.equals("ENUM") || kind.equals("RECORD") || !isJdk(e)) {
      return null;
    }
    for (Class<?> v : CanonicalEncoder.VALUE_TYPES) {
      if (isSubtype(type, known(v))) {
        return null;
      }
    }
    String infrastructure = infrastructure(type);
    if (infrastructure != null) {
      return ArgumentTypes.infrastructureRefusal(name(type), infrastructure);
    }
    String none = noValueIdentity(type);
    return none != null ? none : CanonicalEncoder.noValueRule(name(type));
  }

  /** As {@link MethodPlan#unrecordable}. */
  String unrecordable(TypeMirror type) {
    String infrastructure = infrastructure(type);
    return infrastructure != null ? ArgumentTypes.infrastructureRefusal(name(type), infrastructure)
        : noValueIdentity(type);
  }

  private boolean isJdk(TypeElement e) {
    ModuleElement m = elements.getModuleOf(e);
    if (m != null && !m.isUnnamed()) {
      return ArgumentTypes.isJdkModule(m.getQualifiedName().toString());
    }
    // a compiler that tells no modules: the JDK's own packages
    String name = e.getQualifiedName().toString();
    return m == null && (name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk."));
  }

  /** Whether any type the method's check relies on could not be resolved (another processor may make it). */
  static boolean unresolved(TypeMirror type) {
    return type.getKind() == TypeKind.ERROR;
  }
}
