package io.prefixlog.streams.lookup;

import io.prefixlog.core.chunk.ChunkPrints;
import io.prefixlog.core.chunk.PromptRenderer;
import io.prefixlog.streams.state.BoundedLru;

/**
 * The newest turn's chunk hashes and fingerprints of each live chain ({@link ChunkPrints}, about 16
 * bytes a chunk), shared by every task of the process: what lets the next turn hash only its new
 * chunks and its lookup record list only their hashes. Keys are {@code session/chain}, which no two
 * tasks share.
 *
 * <p>Beside them, bounded apart and by as many bytes, what the newest turn's rendering left ({@link
 * PromptRenderer.Resume}: its body and rendered bytes), so that the next turn renders only from
 * where its body stops sharing that body's bytes. Bodies are large and the prints small: one bound
 * for both would have let the renderings push out the prints of most chains.
 *
 * <p>An entry is used only for the turn right after it ({@code seq + 1}): a turn replayed after an
 * aborted transaction finds its own entry, or none, and writes a whole record; so does a chain
 * whose entry the bound let go. Either way the record is right, only longer.
 */
final class ChunkPrintsCache {
  private record Entry(long seq, ChunkPrints prints) {}

  private record Rendering(long seq, PromptRenderer.Resume resume) {}

  private final BoundedLru<Entry> entries;
  private final BoundedLru<Rendering> renderings;

  ChunkPrintsCache(long capacityBytes) {
    this.entries = new BoundedLru<>(capacityBytes, entry -> 48 + entry.prints.heapBytes());
    this.renderings = new BoundedLru<>(capacityBytes, entry -> 48 + entry.resume.heapBytes());
  }

  /** The prints of turn {@code seq - 1} of the chain, or null when they are not at hand. */
  ChunkPrints previous(String chain, long seq) {
    Entry entry = entries.get(chain);
    return entry != null && entry.seq == seq - 1 ? entry.prints : null;
  }

  /** What the rendering of turn {@code seq - 1} of the chain left, or null. */
  PromptRenderer.Resume previousRendering(String chain, long seq) {
    Rendering entry = renderings.get(chain);
    return entry != null && entry.seq == seq - 1 ? entry.resume : null;
  }

  /**
   * @param resume what the turn's rendering left, or null
   */
  void put(String chain, long seq, ChunkPrints prints, PromptRenderer.Resume resume) {
    entries.put(chain, new Entry(seq, prints));
    if (resume == null) {
      renderings.remove(chain);
    } else {
      renderings.put(chain, new Rendering(seq, resume));
    }
  }

  /** Drops the chain's entries (its turns were erased: their bodies leave the heap too). */
  void remove(String chain) {
    entries.remove(chain);
    renderings.remove(chain);
  }

  long bytes() {
    return entries.bytes() + renderings.bytes();
  }
}
