package io.idempotent.internal;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.lang.ref.Reference;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.Channel;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.Spliterator;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.stream.BaseStream;

/**
 * Which argument types can identify a call. Infrastructure (a JDBI handle, a JDBC connection, a data
 * source...) is recognised by type name, so that no such library is needed here; it is left out of the
 * default payload. Types with no value identity (threads, streams, locks, executors, functional
 * interfaces...) are refused. Stateless and thread-safe.
 */
final class ArgumentTypes {

  /** Types that carry a connection or a transaction rather than a value, by name (including supertypes). */
  static final Set<String> INFRASTRUCTURE = Set.of(
      "org.jdbi.v3.core.Handle",
      "org.jdbi.v3.core.Jdbi",
      "java.sql.Connection",
      "javax.sql.DataSource",
      "jakarta.persistence.EntityManager",
      "javax.persistence.EntityManager",
      "org.hibernate.Session",
      "org.hibernate.StatelessSession");

  /**
   * Types whose instances are resources or behaviour, never values (including subtypes). The compile-time
   * check ({@link ModelTypes}) reads the same list.
   */
  static final List<Class<?>> NO_VALUE_IDENTITY = List.of(
      Thread.class, ThreadGroup.class, ClassLoader.class, BaseStream.class, InputStream.class,
      OutputStream.class, Reader.class, Writer.class, Channel.class, Socket.class, ServerSocket.class,
      Lock.class, ReadWriteLock.class, Executor.class, Future.class, CompletionStage.class, Iterator.class,
      Spliterator.class, Reference.class);

  private ArgumentTypes() {}

  /** The infrastructure type name {@code type} is or extends, or null. */
  static String infrastructure(Class<?> type) {
    Deque<Class<?>> todo = new ArrayDeque<>();
    Set<Class<?>> seen = new HashSet<>();
    todo.add(type);
    while (!todo.isEmpty()) {
      Class<?> c = todo.poll();
      if (!seen.add(c)) {
        continue;
      }
      if (INFRASTRUCTURE.contains(c.getName())) {
        return c.getName();
      }
      if (c.getSuperclass() != null) {
        todo.add(c.getSuperclass());
      }
      todo.addAll(List.of(c.getInterfaces()));
    }
    return null;
  }

  /**
   * Why values of the declared or runtime {@code type} can never identify a call, or null when they
   * may. Infrastructure is not reported here (see {@link #infrastructure}).
   */
  static String noValueIdentity(Class<?> type) {
    for (Class<?> c : NO_VALUE_IDENTITY) {
      if (c.isAssignableFrom(type)) {
        return noValue(type.getName(), c == type ? null : c.getName());
      }
    }
    if (type.isInterface() && isFunctionType(type.isAnnotationPresent(FunctionalInterface.class),
        type.getPackageName())) {
      return functionType(type.getName());
    }
    return null;
  }

  /** Whether an interface so annotated, in that package, is a function type. */
  static boolean isFunctionType(boolean annotatedFunctional, String packageName) {
    return annotatedFunctional || packageName.equals("java.util.function");
  }

  /** Why values of {@code typeName}, which is or extends {@code listed} (null: itself), have no value. */
  static String noValue(String typeName, String listed) {
    return typeName + (listed == null ? "" : " (a " + listed + ")") + " has no value to compare";
  }

  static String functionType(String typeName) {
    return typeName + " is a function type: a lambda or method reference has no value to compare";
  }

  /** Why a declared type is infrastructure rather than a value. */
  static String infrastructureRefusal(String typeName, String infrastructure) {
    return typeName + " is infrastructure (" + infrastructure + "), not a value";
  }

  /** Whether a module of that name belongs to the JDK. */
  static boolean isJdkModule(String moduleName) {
    return moduleName.startsWith("java.") || moduleName.startsWith("jdk.");
  }

  /** Whether {@code type} belongs to the JDK, whose fields are not open to reflection. */
  static boolean isJdk(Class<?> type) {
    Module m = type.getModule();
    if (!m.isNamed() || m.getLayer() != ModuleLayer.boot()) {
      return false;
    }
    return isJdkModule(m.getName());
  }
}
