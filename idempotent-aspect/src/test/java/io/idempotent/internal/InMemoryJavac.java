package io.idempotent.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.annotation.processing.Processor;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/** Compiles one source file with the JDK's javac, as a build would, and keeps what it reported. */
final class InMemoryJavac {

  /** One diagnostic as a build shows it. */
  record Report(Diagnostic.Kind kind, long line, String message) {
    @Override
    public String toString() {
      return kind + " at line " + line + ": " + message;
    }
  }

  /** What a compilation reported and where its classes went. */
  record Result(boolean success, List<Report> reports, Path classes) {
    List<Report> of(Diagnostic.Kind kind) {
      return reports.stream().filter(r -> r.kind() == kind).collect(Collectors.toList());
    }

    List<Report> errors() {
      return of(Diagnostic.Kind.ERROR);
    }
  }

  private InMemoryJavac() {}

  /** The test class path: idempotent-aspect's classes (and its META-INF/services) and dependencies. */
  static String classPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    String path = surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
    // the module's own tests run in the named module: its classes and dependencies are on the module path
    String modules = System.getProperty("jdk.module.path");
    return modules == null || modules.isBlank() ? path
        : path.isBlank() ? modules : path + java.io.File.pathSeparator + modules;
  }

  /**
   * Compiles {@code source}, the file of public class {@code className}, with {@code -parameters} and
   * {@code options}. {@code processor} null lets javac discover processors on the class path.
   */
  static Result compile(String className, String source, Processor processor, String... options) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Path out;
    try {
      out = Files.createTempDirectory("idempotent-javac");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> args = new ArrayList<>(List.of(
        "-classpath", classPath(), "-d", out.toString(), "-parameters", "--release", "17", "-Xlint:-options"));
    args.addAll(List.of(options));
    JavaFileObject file = new SimpleJavaFileObject(
        URI.create("string:///" + className.replace('.', '/') + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
    JavaCompiler.CompilationTask task = javac.getTask(null, null, diagnostics, args, null, List.of(file));
    if (processor != null) {
      task.setProcessors(List.of(processor));
    }
    boolean ok = task.call();
    List<Report> reports = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      reports.add(new Report(d.getKind(), d.getLineNumber(), d.getMessage(Locale.ROOT)));
    }
    return new Result(ok, reports, out);
  }

  /** The 1-based line of the first occurrence of {@code text} in {@code source}. */
  static long lineOf(String source, String text) {
    int at = source.indexOf(text);
    if (at < 0) {
      throw new IllegalArgumentException("not in the source: " + text);
    }
    return source.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
  }
}
