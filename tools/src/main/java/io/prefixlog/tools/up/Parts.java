package io.prefixlog.tools.up;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The started parts of {@code up}, as a stack: each later part may depend on the earlier ones (the
 * proxy publishes to the broker, Connect reads topics the stream app created), so they are stopped
 * in reverse order of start. That holds both for a normal stop (Ctrl-C, or the end of {@code
 * --exit-after-demo}) and when a start fails half way; a close that fails does not keep the parts
 * below it running.
 *
 * <p>Thread-safe: the shutdown hook may close the stack while the main thread is still starting
 * parts. A part started after that is closed at once, and its start reported as failed.
 */
final class Parts implements AutoCloseable {
  /** Starts one part; may block (a broker takes seconds). */
  @FunctionalInterface
  interface Starter<P extends Part> {
    P start() throws IOException, InterruptedException;
  }

  private final Deque<Part> started = new ArrayDeque<>();
  private boolean closed;

  /**
   * Starts a part and pushes it. When the start fails, the parts started so far are closed (their
   * close failures suppressed in the start's) and the start's failure is thrown.
   */
  <P extends Part> P start(Starter<P> starter) throws IOException, InterruptedException {
    P part;
    try {
      part = starter.start();
    } catch (Throwable e) {
      closeAfter(e);
      throw e;
    }
    return push(part);
  }

  /** Pushes a part started elsewhere; closes it at once when the stack was closed already. */
  <P extends Part> P push(P part) {
    synchronized (this) {
      if (!closed) {
        started.push(part);
        return part;
      }
    }
    IllegalStateException stopping =
        new IllegalStateException("stopping: " + part.getClass().getSimpleName() + " not kept");
    closeQuietly(part, stopping);
    throw stopping;
  }

  /**
   * Closes every part, last started first. Each part is closed even when an earlier close fails;
   * the first failure is thrown with the later ones suppressed in it. Idempotent.
   */
  @Override
  public void close() {
    Throwable first = null;
    for (Part part : drain()) {
      try {
        part.close();
      } catch (RuntimeException | Error e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first instanceof RuntimeException e) {
      throw e;
    }
    if (first instanceof Error e) {
      throw e;
    }
  }

  /**
   * Closes every part, last started first, because of {@code failure}, which the caller goes on to
   * throw: close failures are suppressed in it rather than hiding it.
   */
  void closeAfter(Throwable failure) {
    for (Part part : drain()) {
      closeQuietly(part, failure);
    }
  }

  /** Takes the parts off the stack, last started first, and refuses later pushes. */
  private synchronized Deque<Part> drain() {
    closed = true;
    Deque<Part> lifo = new ArrayDeque<>(started);
    started.clear();
    return lifo;
  }

  private static void closeQuietly(Part part, Throwable failure) {
    try {
      part.close();
    } catch (RuntimeException | Error e) {
      failure.addSuppressed(e);
    }
  }
}
