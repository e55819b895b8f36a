package io.prefixlog.tools.replay;

import io.prefixlog.cli.Terminal;
import io.prefixlog.tools.Command;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ctrl-C during a replay: stop sending, wait for the results of what was sent, print the summary,
 * then let the JVM exit.
 */
final class ReplayInterrupt {
  private static final Logger LOGGER = LoggerFactory.getLogger(ReplayInterrupt.class);

  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile boolean requested;
  private Thread hook;

  /** A replay's sending and report; it stops sending once {@link #requested()} turns true. */
  @FunctionalInterface
  interface Replay {
    /** Returns the command's exit code. */
    int run(ReplayInterrupt interrupt) throws InterruptedException;
  }

  /**
   * Runs {@code replay} with the Ctrl-C hook installed and returns its exit code ({@link
   * Command#FAILED} if the thread is interrupted). The terminal is flushed before the hook is
   * released, because releasing it lets an interrupted JVM exit: the summary must be out by then.
   */
  static int during(Terminal terminal, Replay replay) {
    ReplayInterrupt interrupt = install();
    try {
      return replay.run(interrupt);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Command.FAILED;
    } finally {
      terminal.out().flush();
      interrupt.done();
    }
  }

  static ReplayInterrupt install() {
    ReplayInterrupt interrupt = new ReplayInterrupt();
    interrupt.hook =
        new Thread(
            () -> {
              interrupt.requested = true;
              try {
                interrupt.finished.await(30, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "prefixlog-replay-shutdown");
    Runtime.getRuntime().addShutdownHook(interrupt.hook);
    return interrupt;
  }

  boolean requested() {
    return requested;
  }

  void done() {
    finished.countDown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // The JVM is already shutting down (Ctrl-C): the hook is running and now returns.
      LOGGER.debug("shutdown in progress; the replay hook returns now");
    }
  }
}
