package io.prefixlog.analysis.mrc;

import java.util.Arrays;

/**
 * Exact LRU stack distances (Mattson et al. 1970) in O(log n) per access: the distance of an access
 * is the number of distinct keys accessed since the key's previous access, plus one, so an LRU
 * cache of capacity C holds the key at that moment iff distance ≤ C. A first access is {@link
 * #COLD}.
 *
 * <p>How (Bennett–Kruskal / Olken, over the compacted timeline of the performance anchors): every
 * access takes the next position of a timeline; each key keeps a mark at its last position only
 * ({@link LongIntMap} holds that position). The distance is then the number of marks after the
 * key's last position, plus one. Marks are bits, 64 per word, and a 64-ary count hierarchy sits
 * above them: marks per 2^12 positions, per 2^18 and per 2^24. A count of marks after a position
 * sums at most 32 entries per level (from whichever end of the enclosing group is nearer, using the
 * group's own count) and never looks past the tail. A move costs a bit clear, a bit set and six
 * counter updates. For 10 M keys (an 80 M-position timeline) the counts take 80 KB and the bitmap
 * 10 MB, so the only memory touched outside the CPU caches is the key's map slot and the bitmap
 * words around its last position; {@link #prefetch} overlaps those misses across a request's
 * chunks. (A Fenwick tree over the same bits measured no faster: its walk touches a dozen scattered
 * cache lines.)
 *
 * <p>When the timeline is full it is compacted: the live marks (one per distinct key) are
 * renumbered 0..live−1 in order, which keeps their relative order and so every future distance, and
 * the timeline grows to {@value #GROWTH}× the live keys if it was more than half live. Compaction
 * costs one pass over the map, at most once per {@code capacity − live} accesses.
 */
final class StackDistances {
  /** The distance of a first access: no cache capacity makes it a hit. */
  static final int COLD = Integer.MAX_VALUE;

  /** The smallest timeline, in positions. */
  static final int MIN_TIMELINE = 64;

  /** A compacted timeline that is more than half live grows to this many times the live keys. */
  static final int GROWTH = 8;

  private static final int MAX_TIMELINE = Integer.MAX_VALUE - 63;

  private final LongIntMap positions;
  private long[] marks; // bit per timeline position
  private int[] c1; // marks per 2^12 positions (64 words)
  private int[] c2; // marks per 2^18 positions
  private int[] c3; // marks per 2^24 positions
  private int now; // the next timeline position
  private int live; // marks == distinct keys
  private long compactions;
  private long prefetchSink; // keeps the prefetch loads alive

  /**
   * @param timelineCapacity the initial timeline in positions (rounded up to a multiple of 64, at
   *     least {@value #MIN_TIMELINE}); it grows as distinct keys arrive
   * @param expectedKeys a sizing hint for the key map
   */
  StackDistances(int timelineCapacity, int expectedKeys) {
    if (timelineCapacity < 1) {
      throw new IllegalArgumentException("timelineCapacity must be >= 1, got " + timelineCapacity);
    }
    allocate((Math.max(timelineCapacity, MIN_TIMELINE) + 63) >>> 6);
    positions = new LongIntMap(expectedKeys);
  }

  private void allocate(int words) {
    marks = new long[words];
    c1 = new int[((words - 1) >>> 6) + 1];
    c2 = new int[((words - 1) >>> 12) + 1];
    c3 = new int[((words - 1) >>> 18) + 1];
  }

  /** Accesses {@code key}; returns its stack distance before this access, or {@link #COLD}. */
  int access(long key) {
    if (now == marks.length << 6) {
      compact();
    }
    int slot = positions.find(key);
    int at = now++;
    int distance;
    if (slot >= 0) {
      int last = positions.valueAt(slot);
      distance = marksAfter(last, at) + 1;
      marks[last >>> 6] &= ~(1L << last);
      c1[last >>> 12]--;
      c2[last >>> 18]--;
      c3[last >>> 24]--;
      positions.setValueAt(slot, at);
    } else {
      distance = COLD;
      positions.insertAt(~slot, key, at);
      live++;
    }
    marks[at >>> 6] |= 1L << at;
    c1[at >>> 12]++;
    c2[at >>> 18]++;
    c3[at >>> 24]++;
    return distance;
  }

  /**
   * Brings the map slots of {@code keys[from..to)} and the bitmap words at their last positions
   * into the cache before they are accessed: the loads of one pass are independent, so their misses
   * overlap instead of following one another. A hint only: results never depend on it.
   */
  void prefetch(long[] keys, int from, int to) {
    LongIntMap map = positions;
    long sink = 0;
    for (int i = from; i < to; i++) {
      sink += map.touch(keys[i]);
    }
    long[] m = marks;
    int limit = m.length << 6;
    for (int i = from; i < to; i++) {
      int last = map.get(keys[i]);
      if (last >= 0 && last < limit) {
        sink += m[last >>> 6];
      }
    }
    prefetchSink += sink;
  }

  /** {@link #prefetch} of one key's map slot. */
  void touch(long key) {
    prefetchSink += positions.touch(key);
  }

  /** Marks at positions after {@code p}; {@code tail} is the position being taken (unmarked). */
  private int marksAfter(int p, int tail) {
    long[] m = marks;
    int w = p >>> 6;
    int after = Long.bitCount(m[w] >>> (p & 63) >>> 1);
    int tailWord = tail >>> 6;
    if (w == tailWord) {
      return after;
    }
    // words after w in its 64-word group: forward up to the tail, or the group count minus the
    // words up to w, whichever is shorter
    int groupStart = w & ~63;
    int forwardEnd = Math.min(groupStart + 64, tailWord + 1);
    if (forwardEnd - w - 1 <= w - groupStart + 1) {
      for (int i = w + 1; i < forwardEnd; i++) {
        after += Long.bitCount(m[i]);
      }
    } else {
      int upTo = 0;
      for (int i = groupStart; i <= w; i++) {
        upTo += Long.bitCount(m[i]);
      }
      after += c1[w >>> 6] - upTo;
    }
    after += countsAfter(c1, w >>> 6, tail >>> 12, c2[w >>> 12]);
    after += countsAfter(c2, w >>> 12, tail >>> 18, c3[w >>> 18]);
    // at most 128 top-level counts (2^31 positions), and usually one or two after b3
    int[] top = c3;
    for (int i = (w >>> 18) + 1, tailB3 = tail >>> 24; i <= tailB3; i++) {
      after += top[i];
    }
    return after;
  }

  /**
   * Σ counts[i + 1 .. end of i's 64-group], never past {@code tail}; {@code group} is the group's
   * own count, so the sum can also be taken from the group's start.
   */
  private static int countsAfter(int[] counts, int i, int tail, int group) {
    if (i >= tail) {
      return 0;
    }
    int groupStart = i & ~63;
    int forwardEnd = Math.min(groupStart + 64, tail + 1);
    int sum = 0;
    if (forwardEnd - i - 1 <= i - groupStart + 1) {
      for (int j = i + 1; j < forwardEnd; j++) {
        sum += counts[j];
      }
      return sum;
    }
    for (int j = groupStart; j <= i; j++) {
      sum += counts[j];
    }
    return group - sum;
  }

  /** Distinct keys accessed so far. */
  int distinct() {
    return live;
  }

  /** The position the next access takes. */
  int nextPosition() {
    return now;
  }

  /** The timeline's current size in positions. */
  int timelineCapacity() {
    return marks.length << 6;
  }

  /** How many times the timeline was renumbered. */
  long compactions() {
    return compactions;
  }

  private void compact() {
    long[] m = marks;
    int words = m.length;
    // Marks before each word: a new position is that plus the marks below it in its word.
    int[] before = new int[words];
    int run = 0;
    for (int w = 0; w < words; w++) {
      before[w] = run;
      run += Long.bitCount(m[w]);
    }
    positions.remapValues(
        p -> before[p >>> 6] + Long.bitCount(m[p >>> 6] & ((1L << (p & 63)) - 1)));
    long capacity = (long) words << 6;
    if (2L * live > capacity) {
      long grown = ((long) live * GROWTH + 63) & ~63L;
      if (grown > MAX_TIMELINE) {
        grown = MAX_TIMELINE & ~63;
      }
      if (grown <= live) {
        throw new IllegalStateException("timeline cannot hold " + live + " distinct keys");
      }
      allocate((int) (grown >>> 6));
    } else {
      Arrays.fill(m, 0L);
      Arrays.fill(c1, 0);
      Arrays.fill(c2, 0);
      Arrays.fill(c3, 0);
    }
    now = live;
    int fullWords = live >>> 6;
    Arrays.fill(marks, 0, fullWords, -1L);
    if ((live & 63) != 0) {
      marks[fullWords] = (1L << (live & 63)) - 1;
    }
    for (int p = 0; p < live; p += 64) {
      int n = Math.min(64, live - p);
      c1[p >>> 12] += n;
      c2[p >>> 18] += n;
      c3[p >>> 24] += n;
    }
    compactions++;
  }
}
