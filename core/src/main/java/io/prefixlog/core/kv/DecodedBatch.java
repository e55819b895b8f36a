package io.prefixlog.core.kv;

import io.prefixlog.schemas.kv.KvEventBatch;
import java.util.Objects;

/**
 * A payload decoded into the {@code kv.events} record. Its {@code events} may be empty (an engine
 * batch without events, which vLLM never publishes): the record is then not publishable as it is,
 * since the contract requires at least one event on a batch.
 *
 * @param batch the record, with {@code seq}, {@code ts} and the source fields as given to the
 *     decoder
 */
public record DecodedBatch(KvEventBatch batch) implements DecodeResult {
  public DecodedBatch {
    Objects.requireNonNull(batch, "batch");
  }

  /** Whether the engine batch held no events. */
  public boolean isEmpty() {
    return batch.events().isEmpty();
  }
}
