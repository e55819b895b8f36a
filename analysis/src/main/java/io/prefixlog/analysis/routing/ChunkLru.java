package io.prefixlog.analysis.routing;

import java.util.Arrays;

/**
 * One replica's cache: an LRU cache of at most {@code capacity} chunk keys, with the semantics of
 * {@link io.prefixlog.analysis.mrc.NaiveLru}: every chunk of a request is accessed in order, hit or
 * not (a hit becomes the most recently used, a miss is inserted and evicts the least recently used
 * beyond the capacity); the request's prefix hits are its leading run of hits.
 *
 * <p>Nodes live in parallel arrays (key, previous, next) linked from most to least recently used;
 * an open-addressing table with linear probing maps a key to its node, and deletes by backward
 * shift so that evictions leave no tombstones. Arrays grow with the content, never beyond the
 * capacity, so a large capacity costs memory only when the trace fills it.
 */
final class ChunkLru {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;
  private static final int NONE = -1;

  private final int capacity;

  private long[] nodeKeys = new long[16];
  private int[] prev = new int[16];
  private int[] next = new int[16];
  private int size;
  private int head = NONE; // most recently used
  private int tail = NONE; // least recently used

  private long[] slotKeys;
  private int[] slotNodes; // node + 1; 0 is an empty slot
  private int mask;
  private int shift;

  /**
   * @param capacity chunks held, at least 0
   */
  ChunkLru(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
    }
    this.capacity = capacity;
    allocateTable(32);
  }

  int size() {
    return size;
  }

  /** Whether {@code key} is cached; the recency order does not change. */
  boolean contains(long key) {
    return slotOf(key) >= 0;
  }

  /** The number of leading keys of {@code keys[from, to)} cached; nothing changes. */
  int leadingRun(long[] keys, int from, int to) {
    int run = 0;
    for (int i = from; i < to && slotOf(keys[i]) >= 0; i++) {
      run++;
    }
    return run;
  }

  /**
   * Accesses every key of {@code keys[from, to)} in order.
   *
   * @return the leading run of hits
   */
  int access(long[] keys, int from, int to) {
    int leading = 0;
    boolean inRun = true;
    for (int i = from; i < to; i++) {
      boolean hit = access(keys[i]);
      if (hit && inRun) {
        leading++;
      } else {
        inRun = false;
      }
    }
    return leading;
  }

  /** One access; true on a hit. */
  boolean access(long key) {
    int slot = slotOf(key);
    if (slot >= 0) {
      moveToHead(slotNodes[slot] - 1);
      return true;
    }
    if (capacity == 0) {
      return false;
    }
    int node;
    if (size == capacity) {
      node = tail; // reuse the evicted node
      removeSlot(slotOf(nodeKeys[node]));
      unlink(node);
    } else {
      node = size++;
      if (node == nodeKeys.length) {
        int grown = (int) Math.min(capacity, (long) node * 2);
        nodeKeys = Arrays.copyOf(nodeKeys, grown);
        prev = Arrays.copyOf(prev, grown);
        next = Arrays.copyOf(next, grown);
      }
      if (size > (mask + 1) / 2) {
        rehash((mask + 1) * 2);
      }
    }
    nodeKeys[node] = key;
    linkHead(node);
    insertSlot(key, node);
    return false;
  }

  private void moveToHead(int node) {
    if (node != head) {
      unlink(node);
      linkHead(node);
    }
  }

  private void unlink(int node) {
    int p = prev[node];
    int n = next[node];
    if (p == NONE) {
      head = n;
    } else {
      next[p] = n;
    }
    if (n == NONE) {
      tail = p;
    } else {
      prev[n] = p;
    }
  }

  private void linkHead(int node) {
    prev[node] = NONE;
    next[node] = head;
    if (head != NONE) {
      prev[head] = node;
    }
    head = node;
    if (tail == NONE) {
      tail = node;
    }
  }

  private int home(long key) {
    return (int) ((key * GOLDEN) >>> shift);
  }

  /** The slot of {@code key}, or -1. */
  private int slotOf(long key) {
    int slot = home(key);
    while (true) {
      int node = slotNodes[slot];
      if (node == 0) {
        return -1;
      }
      if (slotKeys[slot] == key) {
        return slot;
      }
      slot = (slot + 1) & mask;
    }
  }

  private void insertSlot(long key, int node) {
    int slot = home(key);
    while (slotNodes[slot] != 0) {
      slot = (slot + 1) & mask;
    }
    slotKeys[slot] = key;
    slotNodes[slot] = node + 1;
  }

  /** Deletes the entry at {@code slot}, shifting later entries of its probe run back. */
  private void removeSlot(int slot) {
    int hole = slot;
    int i = slot;
    while (true) {
      i = (i + 1) & mask;
      if (slotNodes[i] == 0) {
        break;
      }
      int want = home(slotKeys[i]);
      // The entry at i may fill the hole when its home is not cyclically in (hole, i].
      boolean movable = hole <= i ? (want <= hole || want > i) : (want <= hole && want > i);
      if (movable) {
        slotKeys[hole] = slotKeys[i];
        slotNodes[hole] = slotNodes[i];
        hole = i;
      }
    }
    slotNodes[hole] = 0;
  }

  private void allocateTable(int slots) {
    slotKeys = new long[slots];
    slotNodes = new int[slots];
    mask = slots - 1;
    shift = 64 - Integer.numberOfTrailingZeros(slots);
  }

  private void rehash(int slots) {
    long[] oldKeys = slotKeys;
    int[] oldNodes = slotNodes;
    allocateTable(slots);
    for (int i = 0; i < oldNodes.length; i++) {
      if (oldNodes[i] != 0) {
        insertSlot(oldKeys[i], oldNodes[i] - 1);
      }
    }
  }
}
