package io.prefixlog.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Java child process started through the {@link Watchdog}, so it dies with this JVM.
 *
 * <p>Its stdin is a pipe this object holds open and never writes to: keep a reference to the {@code
 * ChildProcess} for as long as the child should live. Its stdout and stderr are appended to a log
 * file, never to this JVM's output. {@link #close()} sends SIGTERM, waits for the stop timeout,
 * then kills; it is idempotent.
 */
public final class ChildProcess implements AutoCloseable {
  /** Small-footprint flags for short-lived service JVMs: C1 only, serial GC, bounded heap. */
  public static final List<String> DEFAULT_JVM_FLAGS =
      List.of("-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  private static final Logger LOGGER = LoggerFactory.getLogger(ChildProcess.class);

  /**
   * {@link #DEFAULT_JVM_FLAGS} with a heap of {@code heapMiB} MiB, then {@code more} (a logging
   * configuration, say).
   */
  public static List<String> smallJvmFlags(int heapMiB, String... more) {
    List<String> flags = new ArrayList<>();
    flags.add("-Xmx" + heapMiB + "m");
    flags.add("-XX:+UseSerialGC");
    flags.add("-XX:TieredStopAtLevel=1");
    flags.addAll(List.of(more));
    return List.copyOf(flags);
  }

  private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);

  private final Process process;
  private final String mainClass;
  private final Path logFile;
  private final Duration stopTimeout;
  private final AtomicBoolean closed = new AtomicBoolean();

  private ChildProcess(Process process, String mainClass, Path logFile, Duration stopTimeout) {
    this.process = process;
    this.mainClass = mainClass;
    this.logFile = logFile;
    this.stopTimeout = stopTimeout;
  }

  /** Starts describing a child that runs {@code mainClass.main(args)}. */
  public static Builder builder(String mainClass) {
    return new Builder(mainClass);
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** The file receiving the child's stdout and stderr. */
  public Path logFile() {
    return logFile;
  }

  /** The exit status, or empty while the child runs. */
  public OptionalInt exitStatus() {
    return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
  }

  /**
   * Waits for the child to exit on its own.
   *
   * @return the exit status, or empty if the child still runs after {@code timeout}
   */
  public OptionalInt waitFor(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return OptionalInt.of(process.exitValue());
    }
    return OptionalInt.empty();
  }

  /**
   * Runs {@code await}, which returns once this child is ready or throws; when it throws, the child
   * is closed before the exception goes on, so that a start that failed leaves no process behind.
   */
  public void awaitReady(Runnable await) {
    try {
      await.run();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The last {@code lines} lines of the log file, for error messages; empty if unreadable. */
  public String logTail(int lines) {
    if (lines < 1) {
      throw new IllegalArgumentException("lines must be at least 1 but was " + lines);
    }
    try {
      List<String> all =
          Arrays.asList(
              new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8).split("\\R", -1));
      int end = all.size();
      while (end > 0 && all.get(end - 1).isBlank()) {
        end--;
      }
      return String.join(System.lineSeparator(), all.subList(Math.max(0, end - lines), end));
    } catch (IOException e) {
      return "(log file " + logFile + " unreadable: " + e + ")";
    }
  }

  /**
   * A failed start of this child: {@code what}, then where its log is and its last {@code
   * logTailLines} lines.
   */
  public StartupException startupFailure(String what, int logTailLines) {
    return new StartupException(
        what + "; see " + logFile + ", which ends with:\n" + logTail(logTailLines), logFile);
  }

  /** SIGTERM, wait up to the stop timeout, then SIGKILL. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (!process.isAlive()) {
      return;
    }
    long start = System.nanoTime();
    // SIGTERM through the handle, not Process.destroy(): that also closes the stdin pipe, the
    // watchdog sees end-of-file and halts the child before its clean shutdown finishes.
    process.toHandle().destroy();
    try {
      if (!process.waitFor(stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        LOGGER.warn(
            "Child did not stop after SIGTERM, killing it mainClass={} pid={} stopTimeout={}",
            mainClass,
            process.pid(),
            stopTimeout);
        process.destroyForcibly().waitFor(KILL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    LOGGER.info(
        "Child stopped mainClass={} pid={} stopMillis={}",
        mainClass,
        process.pid(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  @Override
  public String toString() {
    return "ChildProcess[mainClass=" + mainClass + ", pid=" + process.pid() + "]";
  }

  /** Describes a child JVM; {@link #logFile(Path)} is required. */
  public static final class Builder {
    private final String mainClass;
    private List<String> args = List.of();
    private List<String> jvmFlags = DEFAULT_JVM_FLAGS;
    private String classpath = System.getProperty("java.class.path");
    private Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    private Path logFile;
    private Duration stopTimeout = Duration.ofSeconds(10);

    private Builder(String mainClass) {
      Objects.requireNonNull(mainClass, "mainClass");
      if (mainClass.isBlank()) {
        throw new IllegalArgumentException(
            "mainClass must not be blank but was '" + mainClass + "'");
      }
      this.mainClass = mainClass;
    }

    public Builder args(List<String> args) {
      this.args = List.copyOf(args);
      return this;
    }

    /** JVM flags placed before the class path; replaces {@link #DEFAULT_JVM_FLAGS}. */
    public Builder jvmFlags(List<String> jvmFlags) {
      this.jvmFlags = List.copyOf(jvmFlags);
      return this;
    }

    /** The java launcher the child runs on; defaults to this JVM's ({@code java.home}). */
    public Builder java(Path java) {
      this.java = Objects.requireNonNull(java, "java");
      return this;
    }

    /** The child's class path; defaults to this JVM's {@code java.class.path}. */
    public Builder classpath(String classpath) {
      Objects.requireNonNull(classpath, "classpath");
      if (classpath.isBlank()) {
        throw new IllegalArgumentException(
            "classpath must not be blank but was '" + classpath + "'");
      }
      this.classpath = classpath;
      return this;
    }

    /** The file the child's stdout and stderr are appended to; its directory is created. */
    public Builder logFile(Path logFile) {
      this.logFile = Objects.requireNonNull(logFile, "logFile").toAbsolutePath();
      return this;
    }

    /** How long {@link ChildProcess#close()} waits after SIGTERM before killing. */
    public Builder stopTimeout(Duration stopTimeout) {
      Objects.requireNonNull(stopTimeout, "stopTimeout");
      if (stopTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "stopTimeout must not be negative but was " + stopTimeout);
      }
      this.stopTimeout = stopTimeout;
      return this;
    }

    /** The full command line: java, flags, class path, the watchdog, main class and args. */
    public List<String> command() {
      List<String> command = new ArrayList<>();
      command.add(java.toString());
      command.addAll(jvmFlags);
      command.add("-cp");
      command.add(classpath);
      command.add(Watchdog.class.getName());
      command.add(mainClass);
      command.addAll(args);
      return command;
    }

    public ChildProcess start() {
      if (logFile == null) {
        throw new IllegalStateException("logFile is required for child " + mainClass);
      }
      if (classpath == null) {
        throw new IllegalStateException("no classpath given and java.class.path is not set");
      }
      try {
        Files.createDirectories(logFile.getParent());
        Process process =
            new ProcessBuilder(command())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .redirectErrorStream(true)
                .start();
        LOGGER.info(
            "Child started mainClass={} pid={} logFile={}", mainClass, process.pid(), logFile);
        return new ChildProcess(process, mainClass, logFile, stopTimeout);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start child " + mainClass, e);
      }
    }
  }
}
