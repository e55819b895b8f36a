package io.prefixlog.architecture;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.LineMap;
import com.sun.source.tree.MethodTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreeScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The limit on the length of a method (or constructor) of main code, in lines of its body: from the
 * line of its opening brace to the line of its closing brace, blank and comment lines included,
 * lambdas and anonymous classes inside it included.
 *
 * <p>Measured on the sources with the JDK's own parser (javac's tree API, parse only): the class
 * files do not say where a method ends, and no extra tool is needed.
 *
 * <p>Methods longer than the limit when it was set are listed in an allow-list, each held at the
 * length it had (it may shrink, not grow), with the reason it is long; a method is known by its
 * class's simple name and its own name (all overloads), so moving a class to another package does
 * not break its entry.
 */
final class MethodLengthLimit {

  /** One method's measure: where it is and how many lines its body spans. */
  record Method(Path file, String className, String name, long line, long lines) {
    String key() {
      return className + "." + name;
    }

    @Override
    public String toString() {
      return key() + " (" + file + ":" + line + "): " + lines + " lines";
    }
  }

  /** An allow-listed method: the most lines it may have, and why it is long. */
  record Allowed(int maxLines, String reason) {}

  private final int limit;
  private final Map<String, Allowed> allowList;

  MethodLengthLimit(int limit, Map<String, Allowed> allowList) {
    this.limit = limit;
    this.allowList = allowList;
  }

  /** The methods over the limit, or over their allow-listed length, longest first. */
  List<String> violations(List<Method> methods) {
    List<String> violations = new ArrayList<>();
    for (Method m : methods) {
      Allowed allowed = allowList.get(m.key());
      if (allowed == null && m.lines() > limit) {
        violations.add(m + ", over the limit of " + limit + ": split it");
      } else if (allowed != null && m.lines() > Math.max(limit, allowed.maxLines())) {
        violations.add(
            m
                + ", over its allow-listed "
                + allowed.maxLines()
                + " ("
                + allowed.reason()
                + "): an allow-listed method does not grow");
      }
    }
    return violations;
  }

  /** Allow-list entries that name no method longer than the limit: to remove. */
  List<String> unusedEntries(List<Method> methods) {
    List<String> used =
        methods.stream().filter(m -> m.lines() > limit).map(Method::key).distinct().toList();
    return allowList.keySet().stream().filter(k -> !used.contains(k)).sorted().toList();
  }

  /** Every method and constructor with a body in the given source files, longest first. */
  static List<Method> measure(Path root, List<Path> sources) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    List<Method> methods = new ArrayList<>();
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
      JavacTask task =
          (JavacTask)
              javac.getTask(
                  null,
                  files,
                  diagnostics,
                  List.of("-proc:none"),
                  null,
                  files.getJavaFileObjectsFromPaths(sources));
      SourcePositions positions = Trees.instance(task).getSourcePositions();
      for (CompilationUnitTree unit : task.parse()) {
        Path file = root.relativize(Path.of(unit.getSourceFile().toUri()));
        new MethodScanner(unit, positions, file, methods).scan(unit, null);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> errors =
        diagnostics.getDiagnostics().stream()
            .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
            .map(Object::toString)
            .collect(Collectors.toList());
    if (!errors.isEmpty()) {
      throw new IllegalStateException("cannot parse the sources: " + errors);
    }
    methods.sort(Comparator.comparingLong(Method::lines).reversed());
    return methods;
  }

  private static final class MethodScanner extends TreeScanner<Void, Void> {
    private final CompilationUnitTree unit;
    private final SourcePositions positions;
    private final Path file;
    private final List<Method> methods;
    private final Deque<String> classes = new ArrayDeque<>();

    MethodScanner(
        CompilationUnitTree unit, SourcePositions positions, Path file, List<Method> methods) {
      this.unit = unit;
      this.positions = positions;
      this.file = file;
      this.methods = methods;
    }

    @Override
    public Void visitClass(ClassTree tree, Void unused) {
      // An anonymous class's methods count under the named class around it.
      String name = tree.getSimpleName().toString();
      classes.push(name.isEmpty() ? classes.peek() : name);
      try {
        return super.visitClass(tree, unused);
      } finally {
        classes.pop();
      }
    }

    @Override
    public Void visitMethod(MethodTree tree, Void unused) {
      if (tree.getBody() != null) {
        LineMap lines = unit.getLineMap();
        long first = lines.getLineNumber(positions.getStartPosition(unit, tree.getBody()));
        long last = lines.getLineNumber(positions.getEndPosition(unit, tree.getBody()));
        // A constructor's name is <init>.
        String name = tree.getName().toString();
        methods.add(new Method(file, classes.peek(), name, first, last - first + 1));
      }
      return super.visitMethod(tree, unused);
    }
  }
}
