package io.idempotent.architecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What code outside a package can reach of it: its public types, and their public members (and protected
 * ones, where the type can be extended), written one per line so that a change shows as a line added or
 * removed. Members the AspectJ weaver adds to the aspect under names of its own ({@code ajc$…}) are left
 * out; {@code aspectOf()} and {@code hasAspect()}, which woven code calls, are in.
 */
final class ApiSurface {

  private ApiSurface() {}

  static DescribedPredicate<JavaClass> exposedIn(Set<String> packages) {
    return DescribedPredicate.describe("are reachable from outside their package in " + packages,
        c -> packages.contains(c.getPackageName()) && isExposed(c));
  }

  static boolean isExposed(JavaClass c) {
    return c.getModifiers().contains(JavaModifier.PUBLIC)
        && c.getEnclosingClass().map(ApiSurface::isExposed).orElse(c.isTopLevelClass());
  }

  static boolean isExposed(JavaMember m) {
    Set<JavaModifier> mods = m.getModifiers();
    if (mods.contains(JavaModifier.SYNTHETIC) || mods.contains(JavaModifier.BRIDGE) || m.getName().startsWith("ajc$")) {
      return false;
    }
    return mods.contains(JavaModifier.PUBLIC)
        || mods.contains(JavaModifier.PROTECTED) && !m.getOwner().getModifiers().contains(JavaModifier.FINAL);
  }

  /** The surface of the exposed classes of {@code pkg}, one line per type and per member, sorted. */
  static List<String> of(String pkg) {
    List<String> lines = new ArrayList<>();
    ProjectModule.mainClasses().stream()
        .filter(c -> c.getPackageName().equals(pkg) && isExposed(c))
        .sorted(Comparator.comparing(JavaClass::getName))
        .forEach(c -> {
          Class<?> type = load(c.getName());
          lines.add(declaration(type));
          lines.addAll(members(type));
        });
    return lines;
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name, false, ApiSurface.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String declaration(Class<?> type) {
    StringBuilder b = new StringBuilder(type.toGenericString());
    Type superclass = type.getGenericSuperclass();
    if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
      b.append(" extends ").append(superclass.getTypeName());
    }
    Type[] interfaces = type.getGenericInterfaces();
    if (interfaces.length > 0 && !type.isAnnotation()) {
      b.append(type.isInterface() ? " extends " : " implements ")
          .append(Arrays.stream(interfaces).map(Type::getTypeName).collect(Collectors.joining(", ")));
    }
    return b.toString();
  }

  private static List<String> members(Class<?> type) {
    return Stream.of(type.getDeclaredConstructors(), type.getDeclaredMethods(), type.getDeclaredFields())
        .flatMap(Arrays::stream)
        .filter(m -> isExposed(type, m))
        .map(m -> "  " + signature(type, m))
        .sorted()
        .toList();
  }

  private static boolean isExposed(Class<?> type, Member m) {
    int mods = m.getModifiers();
    if (m.isSynthetic() || m instanceof Method method && method.isBridge() || m.getName().startsWith("ajc$")) {
      return false;
    }
    return Modifier.isPublic(mods) || Modifier.isProtected(mods) && !Modifier.isFinal(type.getModifiers());
  }

  /** The member's generic signature, its type's name left out before its own. */
  private static String signature(Class<?> type, Member m) {
    String s = m instanceof Executable e ? e.toGenericString() : ((Field) m).toGenericString();
    if (m instanceof Constructor<?>) {
      return s.replace(type.getTypeName() + "(", type.getSimpleName() + "(");
    }
    s = s.replace(type.getTypeName() + "." + m.getName(), m.getName());
    if (m instanceof Method method && method.getDefaultValue() != null) {
      s += " default " + text(method.getDefaultValue());
    }
    return s;
  }

  private static String text(Object value) {
    if (value.getClass().isArray()) {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < Array.getLength(value); i++) {
        items.add(text(Array.get(value, i)));
      }
      return String.join(", ", items).transform(t -> "{" + t + "}");
    }
    if (value instanceof Class<?> c) {
      return c.getTypeName() + ".class";
    }
    if (value instanceof String s) {
      return '"' + s + '"';
    }
    return String.valueOf(value);
  }
}
