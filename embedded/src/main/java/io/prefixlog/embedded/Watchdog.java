package io.prefixlog.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * Entry point of every child JVM: {@code java -cp … io.prefixlog.embedded.Watchdog <mainClass>
 * <args…>}.
 *
 * <p>A daemon thread blocks reading standard input; when it reaches end-of-file the JVM halts at
 * once. {@link ChildProcess} gives each child a stdin pipe that the parent never closes, so the
 * pipe only reaches EOF when the parent process is gone, however it died (SIGKILL included: the
 * kernel closes the write end). Then the real main class runs in this JVM, unaware of the watchdog.
 */
public final class Watchdog {
  /** Exit status of a child halted because its parent went away. */
  public static final int PARENT_GONE_STATUS = 3;

  /** Exit status when the command line is unusable. */
  public static final int USAGE_STATUS = 2;

  private Watchdog() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      // No logging framework is set up yet in a child; stderr goes to the child's log file.
      System.err.println(
          "usage: java -cp <classpath> " + Watchdog.class.getName() + " <mainClass> [args...]");
      System.exit(USAGE_STATUS);
    }
    Thread watcher = new Thread(() -> haltAtEndOfInput(System.in), "prefixlog-watchdog");
    watcher.setDaemon(true);
    watcher.start();
    runMain(args[0], Arrays.copyOfRange(args, 1, args.length));
  }

  private static void haltAtEndOfInput(InputStream in) {
    byte[] buffer = new byte[256];
    String reason = "stdin reached end-of-file";
    try {
      while (in.read(buffer) != -1) {
        // The parent never writes; anything that arrives is discarded.
      }
    } catch (IOException e) {
      reason = "stdin failed: " + e;
    }
    // Written straight to stderr (the child's log file): halt() skips shutdown hooks, so a logging
    // framework would not get to flush. halt(), not exit(): the service's own shutdown hooks could
    // block on a parent that no longer exists.
    System.err.println("prefixlog watchdog: parent process gone (" + reason + "), halting");
    System.err.flush();
    Runtime.getRuntime().halt(PARENT_GONE_STATUS);
  }

  private static void runMain(String mainClassName, String[] mainArgs) throws Throwable {
    Method main =
        Class.forName(mainClassName, true, Thread.currentThread().getContextClassLoader())
            .getMethod("main", String[].class);
    if (!Modifier.isStatic(main.getModifiers())) {
      throw new IllegalArgumentException("main(String[]) is not static in " + mainClassName);
    }
    try {
      main.invoke(null, (Object) mainArgs);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
