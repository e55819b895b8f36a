package io.prefixlog.bridge.proxy;

/**
 * Something waiting in the {@link EventQueue} to be published: a captured exchange, which the
 * publisher thread encodes (never an event loop), or an event that arrived already encoded
 * (ingest).
 */
sealed interface Outbound permits CapturedExchange, EncodedEvent {
  /** Bytes it holds, for the queue's byte bound. */
  long bytes();
}
