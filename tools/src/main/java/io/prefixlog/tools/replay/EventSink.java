package io.prefixlog.tools.replay;

import java.util.function.Consumer;

/** Where replay sends its events: the raw topic, or memory in tests. */
interface EventSink extends AutoCloseable {

  /**
   * Sends one event asynchronously.
   *
   * @param onResult called once with null on success or the failure
   */
  void send(String key, byte[] value, Consumer<Exception> onResult);

  /** Blocks until every event sent so far has its result. */
  void flush();

  @Override
  void close();

  /** Opens a sink, failing with a message fit for the user when it cannot. */
  @FunctionalInterface
  interface Factory {
    EventSink open(String bootstrap, String topic) throws SinkException;
  }

  /** The sink cannot be opened: the message says why and what to do. */
  final class SinkException extends Exception {
    SinkException(String message) {
      super(message);
    }

    SinkException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
