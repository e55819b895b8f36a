package io.prefixlog.core.chunk;

import io.prefixlog.core.rebuild.TurnKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Gives chunk lookup records their whole hash lists, one record at a time in the order of their
 * partition (a session's records share one partition, its turns in {@code seq} order).
 *
 * <p>A version 2 record lists only the hashes after its first {@code prefix_chunks}, which are
 * those of the previous turn of its chain (key {@code session_key/chain/seq-1}). So for each chain
 * this keeps the resolved list of the newest turn read, and nothing older: a record that refers to
 * its previous turn is resolved from that list, or, when the list is not at hand, counted as {@link
 * Unresolved} and skipped, never read as if its tail were the whole list. The chain is then skipped
 * until its next whole record (the first turn, one every 64 turns, one after a writer's cache
 * miss), from which it resolves again. Whole records (version 1, version 2 with {@code
 * prefix_chunks} 0) always resolve to the list they hold.
 *
 * <p>Memory is bounded: chains are kept in least-recently-used order and, beyond {@code
 * capacityBytes} as {@link HashLists#heapBytes} counts them, the least recently used chain's list
 * is let go (counted; its next referring record is {@link Unresolved#PREVIOUS_LET_GO}). A tombstone
 * removes its chain: an erasure tombstones every turn of the chains it erases.
 *
 * <p>Not thread-safe: one reader feeds it.
 *
 * @param <L> how a hash list is held ({@link #HEX}: the records' strings; {@link #LONGS}: 64-bit
 *     keys)
 */
public final class LookupChains<L> {
  /** How the hash lists are held: the resolver only measures, cuts and joins them. */
  public interface HashLists<L> {
    int size(L list);

    /**
     * A new list: the first {@code count} hashes of {@code previous}, then those of {@code tail}.
     */
    L join(L previous, int count, L tail);

    /** Heap bytes the list holds, as the memory bound counts them. */
    long heapBytes(L list);
  }

  /** Hashes as the records write them ({@code 0x}-prefixed hex), kept exactly. */
  public static final HashLists<List<String>> HEX =
      new HashLists<>() {
        @Override
        public int size(List<String> list) {
          return list.size();
        }

        @Override
        public List<String> join(List<String> previous, int count, List<String> tail) {
          List<String> all = new ArrayList<>(count + tail.size());
          all.addAll(previous.subList(0, count));
          all.addAll(tail);
          return Collections.unmodifiableList(all);
        }

        @Override
        public long heapBytes(List<String> list) {
          // The list's array of references, and per string its object, array header and bytes.
          long bytes = 16 + 4L * list.size();
          for (String hash : list) {
            bytes += 40 + hash.length();
          }
          return bytes;
        }
      };

  /** Hashes as 64-bit keys. */
  public static final HashLists<long[]> LONGS =
      new HashLists<>() {
        @Override
        public int size(long[] list) {
          return list.length;
        }

        @Override
        public long[] join(long[] previous, int count, long[] tail) {
          long[] all = Arrays.copyOf(previous, count + tail.length);
          System.arraycopy(tail, 0, all, count, tail.length);
          return all;
        }

        @Override
        public long heapBytes(long[] list) {
          return 16 + 8L * list.length;
        }
      };

  /** Why a record could not be resolved. */
  public enum Unresolved {
    /**
     * The chain's previous turn was not read: the read began inside the chain, or that turn was
     * compacted away, erased or expired (retention), or the records came without keys.
     */
    PREVIOUS_NOT_READ("its chain's previous turn was not read"),
    /** The chain's previous turn was itself unresolved. */
    PREVIOUS_UNRESOLVED("its chain's previous turn was unresolved too"),
    /** The memory bound let the chain's list go. */
    PREVIOUS_LET_GO("the memory bound let its chain's previous list go"),
    /** The record shares more hashes than its chain's previous turn has: the data disagree. */
    PREVIOUS_TOO_SHORT("it shares more hashes than its chain's previous turn has"),
    /** The record refers to a previous turn but its key names no turn (or it has no key). */
    NOT_A_TURN("it refers to a previous turn, but its key names no turn");

    private final String description;

    Unresolved(String description) {
      this.description = description;
    }

    /** Why, as a phrase for a report: "… skipped: {description}". */
    public String description() {
      return description;
    }
  }

  /** What one record resolved to. */
  public sealed interface Outcome<L> {}

  /**
   * The record's whole list.
   *
   * @param hashes the whole list; the record's own list when it is whole
   * @param joined whether it was joined from the previous turn's list (a referring version 2
   *     record)
   */
  public record Resolved<L>(L hashes, boolean joined) implements Outcome<L> {}

  /** The record could not be resolved, and why. */
  public record Skipped<L>(Unresolved reason) implements Outcome<L> {}

  /**
   * What was resolved so far.
   *
   * @param resolved records given their whole list
   * @param joined of those, records joined from their chain's previous turn
   * @param unresolved records skipped, by reason (every reason present, zero or not)
   * @param chainsLetGo chains whose list the memory bound let go
   * @param chains chains held now
   * @param bytes their bytes as the bound counts them
   */
  public record Stats(
      long resolved,
      long joined,
      Map<Unresolved, Long> unresolved,
      long chainsLetGo,
      int chains,
      long bytes) {
    public Stats {
      unresolved = Collections.unmodifiableMap(new EnumMap<>(unresolved));
    }

    /** Records skipped, all reasons together. */
    public long unresolvedTotal() {
      long total = 0;
      for (long n : unresolved.values()) {
        total += n;
      }
      return total;
    }
  }

  /**
   * Chains let go whose names are kept to tell {@link Unresolved#PREVIOUS_LET_GO} from {@link
   * Unresolved#PREVIOUS_NOT_READ}: the count of chains let go is exact, the reason for the chains
   * beyond these is "not read".
   */
  static final int LET_GO_REMEMBERED = 4096;

  /** Bytes an entry costs besides its list: the map entry, the key, the entry object. */
  private static final long ENTRY_BYTES = 96;

  /** A chain's newest turn: its list, or null when that turn was unresolved. */
  private record Entry<L>(long seq, L list, long bytes) {}

  private final HashLists<L> lists;
  private final long capacityBytes;
  private final LinkedHashMap<String, Entry<L>> chains = new LinkedHashMap<>(1024, 0.75f, true);
  private final LinkedHashMap<String, Long> letGo =
      new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
          return size() > LET_GO_REMEMBERED;
        }
      };
  private final EnumMap<Unresolved, Long> unresolved = new EnumMap<>(Unresolved.class);
  private long bytes;
  private long resolved;
  private long joined;
  private long chainsLetGo;

  /**
   * @param lists how the hash lists are held
   * @param capacityBytes the bound on the lists kept, at least 0 (0 keeps none: only whole records
   *     resolve)
   */
  public LookupChains(HashLists<L> lists, long capacityBytes) {
    this.lists = Objects.requireNonNull(lists, "lists");
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("capacityBytes must be >= 0, got " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    for (Unresolved reason : Unresolved.values()) {
      unresolved.put(reason, 0L);
    }
  }

  /**
   * Resolves one record.
   *
   * @param key the record's key: {@code session_key/chain/seq} for a turn; anything else (null for
   *     an input without keys) names no chain
   * @param turn false for a record that belongs to no turn (a sampled-out request's hash-only
   *     lookup, keyed {@code session_key/ts/request_id}), even when its key parses as one
   * @param prefixChunks the record's {@code prefix_chunks}; 0 for a whole record (version 1, or
   *     version 2 sharing nothing)
   * @param listed the hashes the record lists: version 1's {@code chunk_hashes}, version 2's {@code
   *     tail_hashes}
   */
  public Outcome<L> accept(String key, boolean turn, int prefixChunks, L listed) {
    Objects.requireNonNull(listed, "listed");
    if (prefixChunks < 0) {
      throw new IllegalArgumentException("prefixChunks must be >= 0, got " + prefixChunks);
    }
    TurnKey turnKey = turn ? TurnKey.parse(key).orElse(null) : null;
    if (turnKey == null) {
      return prefixChunks == 0 ? resolved(listed, false) : skipped(Unresolved.NOT_A_TURN);
    }
    String chain = turnKey.chainKey();
    long seq = turnKey.seq();
    if (prefixChunks == 0) {
      keep(chain, seq, listed);
      return resolved(listed, false);
    }
    Entry<L> previous = chains.get(chain);
    Unresolved reason = null;
    if (previous == null || previous.seq() != seq - 1) {
      Long goneAt = letGo.get(chain);
      reason =
          previous == null && goneAt != null && goneAt == seq - 1
              ? Unresolved.PREVIOUS_LET_GO
              : Unresolved.PREVIOUS_NOT_READ;
    } else if (previous.list() == null) {
      reason = Unresolved.PREVIOUS_UNRESOLVED;
    } else if (lists.size(previous.list()) < prefixChunks) {
      reason = Unresolved.PREVIOUS_TOO_SHORT;
    }
    if (reason != null) {
      keep(chain, seq, null);
      return skipped(reason);
    }
    L whole = lists.join(previous.list(), prefixChunks, listed);
    keep(chain, seq, whole);
    return resolved(whole, true);
  }

  /** A tombstone under {@code key}: its chain is forgotten. */
  public void tombstone(String key) {
    TurnKey.parse(key)
        .ifPresent(
            turn -> {
              Entry<L> old = chains.remove(turn.chainKey());
              if (old != null) {
                bytes -= old.bytes();
              }
              letGo.remove(turn.chainKey());
            });
  }

  public Stats stats() {
    return new Stats(resolved, joined, unresolved, chainsLetGo, chains.size(), bytes);
  }

  private Outcome<L> resolved(L hashes, boolean wasJoined) {
    resolved++;
    if (wasJoined) {
      joined++;
    }
    return new Resolved<>(hashes, wasJoined);
  }

  private Outcome<L> skipped(Unresolved reason) {
    unresolved.merge(reason, 1L, Long::sum);
    return new Skipped<>(reason);
  }

  /** Makes {@code list} (null: unresolved) the chain's newest turn, then keeps to the bound. */
  private void keep(String chain, long seq, L list) {
    long weight = ENTRY_BYTES + 2L * chain.length() + (list == null ? 0 : lists.heapBytes(list));
    Entry<L> old = chains.put(chain, new Entry<>(seq, list, weight));
    bytes += weight - (old == null ? 0 : old.bytes());
    letGo.remove(chain);
    Iterator<Map.Entry<String, Entry<L>>> eldest = chains.entrySet().iterator();
    while (bytes > capacityBytes && eldest.hasNext()) {
      Map.Entry<String, Entry<L>> e = eldest.next();
      bytes -= e.getValue().bytes();
      eldest.remove();
      if (e.getValue().list() != null) {
        chainsLetGo++;
        letGo.put(e.getKey(), e.getValue().seq());
      }
    }
  }
}
