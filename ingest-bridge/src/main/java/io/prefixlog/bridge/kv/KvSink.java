package io.prefixlog.bridge.kv;

import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.util.function.Consumer;

/** Where the sequencers hand their records: never blocks, and may refuse one (when full). */
interface KvSink {
  /**
   * Hands over a batch or marker for {@code kv.events}.
   *
   * @param onLost called (from another thread) if the record is taken but Kafka later refuses it,
   *     with the record's source, numbers and marker (its events need not be there)
   * @return whether it was taken
   */
  boolean offer(KvEventBatch record, Consumer<KvEventBatch> onLost);

  /** Hands over a dead letter for {@code dlq} under {@code key}; whether it was taken. */
  boolean offerDeadLetter(byte[] key, DeadLetter letter);
}
