package io.prefixlog.streams.errors;

import org.apache.kafka.streams.errors.StreamsException;

/**
 * A processor failed after it had begun to write the outcome of its work (its stores, its outputs):
 * what it wrote so far must not be committed without the rest. Dead-lettering the input and going
 * on, as {@link ProcessingErrors} does for an input that fails before any write, would commit those
 * writes (a session's seq and base without the delta every later turn is encoded against). As a
 * {@link StreamsException} it fails the task instead: Kafka Streams closes it dirty, exactly-once
 * aborts the transaction, and the replacement thread restores the stores and replays the input from
 * the last commit. A failure that repeats on every replay stops the app at {@code
 * PREFIXLOG_THREAD_FAILURE_LIMIT}, with the cause logged, rather than corrupting a session.
 */
public final class PartialWriteException extends StreamsException {
  private static final long serialVersionUID = 1L;

  /**
   * @param what the work that was cut short, for the log: never a body or anything else an input
   *     holds beyond its key and position
   */
  public PartialWriteException(String what, Throwable cause) {
    super(
        what + " failed after its first write; the task fails so that its transaction aborts",
        cause);
  }
}
