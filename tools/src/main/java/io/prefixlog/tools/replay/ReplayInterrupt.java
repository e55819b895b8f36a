package io.prefixlog.tools.replay;

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
