package io.prefixlog.bridge.proxy;

/**
 * Something waiting in the {@link EventQueue} to be published: a captured exchange (encoded on the
 * publisher thread, never on an event loop) or an event that arrived already encoded (ingest).
 */
interface Outbound {
  /** Bytes it holds, for the queue's byte bound. */
  long bytes();

  /** The record to publish. Runs on the publisher thread. */
  EncodedEvent encode();
}
