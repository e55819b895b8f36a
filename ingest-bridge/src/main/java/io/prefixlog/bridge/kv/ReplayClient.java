package io.prefixlog.bridge.kv;

import java.util.List;
import java.util.function.Predicate;

/** Asks an engine's ROUTER replay endpoint for the batches it still buffers. */
interface ReplayClient {
  /**
   * Requests every buffered batch from {@code fromSeq} on and hands each reply message (its frames
   * after the DEALER's view: {@code [b"", topic, seq, payload]} or {@code [b"", seq, payload]}) to
   * {@code handler}, in order, until the handler returns {@code false} (it saw the end marker) or
   * the time allowed for one replay runs out.
   *
   * @return {@code true} when the handler saw the end, {@code false} when time ran out or the
   *     request failed
   */
  boolean replay(long fromSeq, Predicate<List<byte[]>> handler);
}
