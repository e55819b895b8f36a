package io.prefixlog.analysis.mrc;

import java.util.function.IntUnaryOperator;

/**
 * An open-addressing {@code long → int} map with linear probing, for the last timeline position of
 * every chunk key. No boxing, no deletion (a key once seen stays: it is part of the working set).
 *
 * <p>Key and value share one {@code long[]} (key at {@code 2s}, value + 1 at {@code 2s + 1}), so a
 * probe touches one cache line: the map is the only structure of the stack-distance pass that does
 * not fit in the CPU caches, and one miss per access is its whole cost. A value lane of 0 marks an
 * empty slot, so every {@code long} (0 included) is a valid key; values are non-negative.
 */
final class LongIntMap {
  /** Slots never exceed 2^29 (a {@code long[]} of 2^30 elements). */
  static final int MAX_SLOTS = 1 << 29;

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private long[] table;
  private int mask; // slots - 1
  private int shift; // 64 - log2(slots)
  private int size;
  private int resizeAt;

  LongIntMap(int expectedKeys) {
    if (expectedKeys < 0) {
      throw new IllegalArgumentException("expectedKeys must be >= 0, got " + expectedKeys);
    }
    int slots = 16;
    while (slots < MAX_SLOTS && slots * 0.7 < expectedKeys) {
      slots <<= 1;
    }
    allocate(slots);
  }

  private void allocate(int slots) {
    table = new long[slots * 2];
    mask = slots - 1;
    shift = 64 - Integer.numberOfTrailingZeros(slots);
    resizeAt = (int) (slots * 0.7);
  }

  int size() {
    return size;
  }

  int slots() {
    return mask + 1;
  }

  /**
   * The slot holding {@code key}, or {@code ~slot} of the empty slot where it would be inserted (a
   * negative number). A negative result stays valid only until the next insertion.
   */
  int find(long key) {
    long[] t = table;
    int slot = (int) ((key * GOLDEN) >>> shift);
    while (true) {
      int i = slot << 1;
      if (t[i + 1] == 0) {
        return ~slot;
      }
      if (t[i] == key) {
        return slot;
      }
      slot = (slot + 1) & mask;
    }
  }

  /**
   * Reads the value lane of {@code key}'s home slot, bringing its cache line in; the result is
   * meaningless. Independent reads of several keys overlap their cache misses, so touching a
   * request's keys first makes the real lookups hit the cache.
   */
  long touch(long key) {
    return table[((int) ((key * GOLDEN) >>> shift) << 1) + 1];
  }

  /** The value at a slot that {@link #find} returned as present. */
  int valueAt(int slot) {
    return (int) table[(slot << 1) + 1] - 1;
  }

  void setValueAt(int slot, int value) {
    table[(slot << 1) + 1] = value + 1L;
  }

  /** Inserts a key {@link #find} reported absent, at the slot it returned ({@code ~result}). */
  void insertAt(int slot, long key, int value) {
    int i = slot << 1;
    table[i] = key;
    table[i + 1] = value + 1L;
    if (++size > resizeAt) {
      grow();
    }
  }

  /** The value of {@code key}, or -1. For tests and slow paths. */
  int get(long key) {
    int slot = find(key);
    return slot < 0 ? -1 : valueAt(slot);
  }

  /** Replaces every value {@code v} by {@code remap(v)}, in slot order. */
  void remapValues(IntUnaryOperator remap) {
    long[] t = table;
    for (int i = 1; i < t.length; i += 2) {
      long stored = t[i];
      if (stored != 0) {
        t[i] = remap.applyAsInt((int) stored - 1) + 1L;
      }
    }
  }

  private void grow() {
    int slots = mask + 1;
    if (slots >= MAX_SLOTS) {
      throw new IllegalStateException(
          "more than " + (long) MAX_SLOTS * 7 / 10 + " distinct chunk keys in one cache");
    }
    long[] old = table;
    allocate(slots << 1);
    long[] t = table;
    for (int i = 0; i < old.length; i += 2) {
      long stored = old[i + 1];
      if (stored != 0) {
        long key = old[i];
        int slot = (int) ((key * GOLDEN) >>> shift);
        while (t[(slot << 1) + 1] != 0) {
          slot = (slot + 1) & mask;
        }
        t[slot << 1] = key;
        t[(slot << 1) + 1] = stored;
      }
    }
  }
}
