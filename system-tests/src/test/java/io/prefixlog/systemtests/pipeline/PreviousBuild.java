package io.prefixlog.systemtests.pipeline;

import io.prefixlog.embedded.Watchdog;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The stream app and the ingest bridge as another commit of this repository builds them, for tests
 * that run instances of that build next to this one's.
 *
 * <p>The commit is checked out in a detached git worktree under this module's {@code
 * target/upgrade/}, and built there by Maven, offline, without tests, checks or {@code install}:
 * {@code package} of the stream app, the bridge and the modules they need, and {@code
 * dependency:build-classpath} in the same reactor, so that the sibling modules resolve to the
 * worktree's own jars, not to the local repository's SNAPSHOT jars of the same version (which
 * {@link #classpath} checks). The class paths are kept in files next to the worktree, and a later
 * run reuses them while everything they name is there ({@code mvn clean} removes both).
 *
 * @param commit the full commit id
 * @param worktree where it is checked out
 * @param classpath the stream app's runtime class path in that build, with the watchdog that {@link
 *     io.prefixlog.embedded.ChildProcess} starts every child JVM through
 * @param bridgeClasspath the same of the ingest bridge ({@code io.prefixlog.bridge.BridgeMain})
 * @param buildTime how long the build took, zero when an earlier run's was reused
 */
record PreviousBuild(
    String commit, Path worktree, String classpath, String bridgeClasspath, Duration buildTime) {
  /**
   * The build a rolling upgrade to this one starts from: the last build with the formats and the
   * topology that deployments run, from before the upgrade support (the format generations, the
   * topology check) existed. When a release ships, this becomes its commit.
   */
  static final String BASELINE = "258d608f062b15e8b51ee0135c2eca425f1e1a52";

  private static final Duration GIT_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(15);

  /** Builds {@code commit} (or reuses an earlier run's build of it) and prints how long it took. */
  static PreviousBuild of(String commit) throws IOException, InterruptedException {
    Path module = Path.of("").toAbsolutePath();
    Path root = Path.of(run(module, GIT_TIMEOUT, "git", "rev-parse", "--show-toplevel").strip());
    String full = resolve(root, commit);
    Path upgrade = module.resolve("target/upgrade");
    Path worktree = upgrade.resolve(full.substring(0, 12));
    Path classpathFile = upgrade.resolve(full.substring(0, 12) + ".classpath");
    Path bridgeClasspathFile = upgrade.resolve(full.substring(0, 12) + ".bridge.classpath");
    String reused = reusable(classpathFile);
    String reusedBridge = reusable(bridgeClasspathFile);
    if (reused != null && reusedBridge != null) {
      System.err.printf("previous build %s: reused from %s%n", full, worktree);
      return new PreviousBuild(full, worktree, reused, reusedBridge, Duration.ZERO);
    }
    long start = System.nanoTime();
    checkOut(root, worktree, full);
    Path log = upgrade.resolve(full.substring(0, 12) + ".build.log");
    build(worktree, log);
    String classpath = classpath(worktree, root, "stream-app");
    String bridgeClasspath = classpath(worktree, root, "ingest-bridge");
    keep(classpath, classpathFile);
    keep(bridgeClasspath, bridgeClasspathFile);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    System.err.printf(
        "previous build %s: checked out and built in %d s (%s; log %s)%n",
        full, took.toSeconds(), worktree, log);
    return new PreviousBuild(full, worktree, classpath, bridgeClasspath, took);
  }

  /** The class path an earlier run kept in {@code file}, or null: none, or a part of it is gone. */
  private static String reusable(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    String classpath = Files.readString(file, StandardCharsets.UTF_8).strip();
    return Stream.of(classpath.split(File.pathSeparator)).allMatch(e -> Files.exists(Path.of(e)))
        ? classpath
        : null;
  }

  /** Writes {@code classpath} to {@code file} whole or not at all. */
  private static void keep(String classpath, Path file) throws IOException {
    Path partial = file.resolveSibling(file.getFileName() + ".partial");
    Files.writeString(partial, classpath, StandardCharsets.UTF_8);
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The full id of {@code commit}, or an error saying how to fetch it. */
  private static String resolve(Path root, String commit) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder("git", "rev-parse", "--verify", "--quiet", commit + "^{commit}")
            .directory(root.toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() == 0) {
      return out.strip();
    }
    boolean shallow =
        run(root, GIT_TIMEOUT, "git", "rev-parse", "--is-shallow-repository")
            .strip()
            .equals("true");
    throw new IllegalStateException(
        "commit "
            + commit
            + ", the previous build the upgrade tests run, is not in the git repository at "
            + root
            + (shallow
                ? ": it is a shallow clone; fetch the history with `git fetch --unshallow`"
                : ": fetch it with `git fetch origin " + commit + "`")
            + " (in CI: check out with full history, e.g. actions/checkout's fetch-depth: 0)");
  }

  /** A detached worktree of {@code commit} at {@code worktree}, replacing any other there. */
  private static void checkOut(Path root, Path worktree, String commit)
      throws IOException, InterruptedException {
    if (Files.isDirectory(worktree)) {
      String head = "";
      try {
        head = run(worktree, GIT_TIMEOUT, "git", "rev-parse", "HEAD").strip();
      } catch (IllegalStateException e) {
        // not a worktree any more (a half-deleted directory): replaced below
      }
      if (head.equals(commit) && Files.isRegularFile(worktree.resolve("pom.xml"))) {
        return;
      }
      deleteRecursively(worktree);
    }
    Files.createDirectories(worktree.getParent());
    // --force: a worktree that mvn clean deleted is still registered with git under this path.
    run(
        root,
        GIT_TIMEOUT,
        "git",
        "worktree",
        "add",
        "--force",
        "--detach",
        worktree.toString(),
        commit);
  }

  private static void build(Path worktree, Path log) throws IOException, InterruptedException {
    ProcessBuilder builder =
        new ProcessBuilder(
                "mvn",
                "-B",
                "-o",
                "-q",
                "-Pquick",
                "-Dmaven.test.skip=true",
                "-DincludeScope=runtime",
                "-Dmdep.outputFile=target/runtime-classpath.txt",
                "-pl",
                "stream-app,ingest-bridge",
                "-am",
                "package",
                "dependency:build-classpath")
            .directory(worktree.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process process = builder.start();
    if (!process.waitFor(BUILD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(
          "the build in " + worktree + " took longer than " + BUILD_TIMEOUT + "; see " + log);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          "the build in "
              + worktree
              + " failed (exit "
              + process.exitValue()
              + "; offline: a dependency missing from the local repository fails it); "
              + log
              + " ends with:\n"
              + tail(log, 30));
    }
  }

  /**
   * The classes and runtime class path of {@code module} in {@code worktree}, and the watchdog.
   *
   * @throws IllegalStateException when a prefixlog module resolved anywhere but in the worktree
   */
  private static String classpath(Path worktree, Path root, String module) throws IOException {
    Path listed = worktree.resolve(module + "/target/runtime-classpath.txt");
    if (!Files.isRegularFile(listed)) {
      throw new IllegalStateException("the build wrote no class path at " + listed);
    }
    List<String> entries = new ArrayList<>();
    entries.add(worktree.resolve(module + "/target/classes").toString());
    for (String entry :
        Files.readString(listed, StandardCharsets.UTF_8).strip().split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        entries.add(entry);
      }
    }
    List<String> elsewhere =
        entries.stream()
            .filter(e -> Path.of(e).getFileName().toString().startsWith("prefixlog-"))
            .filter(e -> !Path.of(e).startsWith(worktree))
            .toList();
    List<String> modules =
        entries.stream()
            .filter(e -> Path.of(e).getFileName().toString().startsWith("prefixlog-"))
            .toList();
    if (!elsewhere.isEmpty() || modules.size() < 2) {
      throw new IllegalStateException(
          "the previous build's class path of "
              + module
              + " must take prefixlog's modules from its worktree "
              + worktree
              + " (not from the local repository's SNAPSHOT jars of the same version, nor from "
              + root
              + "): it names "
              + modules);
    }
    entries.add(watchdog().toString());
    return String.join(File.pathSeparator, entries);
  }

  /** Where this JVM's {@link Watchdog} class comes from: every child JVM starts through it. */
  private static Path watchdog() {
    try {
      return Path.of(Watchdog.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the watchdog's classes", e);
    }
  }

  private static String run(Path dir, Duration timeout, String... command)
      throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not finish in " + timeout);
    }
    String text = new String(out, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", command)
              + " failed in "
              + dir
              + " (exit "
              + process.exitValue()
              + "): "
              + text.strip());
    }
    return text;
  }

  private static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  private static void deleteRecursively(Path path) throws IOException {
    try (Stream<Path> walk = Files.walk(path)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
