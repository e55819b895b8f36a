package io.prefixlog.streams.lookup;

import io.prefixlog.core.chunk.ChunkPrints;
import io.prefixlog.streams.state.BoundedLru;

/**
 * The newest turn's chunk hashes and fingerprints of each live chain ({@link ChunkPrints}, about 16
 * bytes a chunk), shared by every task of the process: what lets the next turn hash only its new
 * chunks and its lookup record list only their hashes. Keys are {@code session/chain}, which no two
 * tasks share.
 *
 * <p>An entry is used only for the turn right after it ({@code seq + 1}): a turn replayed after an
 * aborted transaction finds its own entry, or none, and writes a whole record; so does a chain
 * whose entry the bound let go. Either way the record is right, only longer.
 */
final class ChunkPrintsCache {
  private record Entry(long seq, ChunkPrints prints) {}

  private final BoundedLru<Entry> entries;

  ChunkPrintsCache(long capacityBytes) {
    this.entries = new BoundedLru<>(capacityBytes, entry -> 48 + entry.prints.heapBytes());
  }

  /** The prints of turn {@code seq - 1} of the chain, or null when they are not at hand. */
  ChunkPrints previous(String chain, long seq) {
    Entry entry = entries.get(chain);
    return entry != null && entry.seq == seq - 1 ? entry.prints : null;
  }

  void put(String chain, long seq, ChunkPrints prints) {
    entries.put(chain, new Entry(seq, prints));
  }

  void remove(String chain) {
    entries.remove(chain);
  }

  long bytes() {
    return entries.bytes();
  }
}
