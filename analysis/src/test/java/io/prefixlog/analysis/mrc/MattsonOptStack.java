package io.prefixlog.analysis.mrc;

import java.util.Arrays;

/**
 * Exact OPT (Belady's MIN) stack distances for a whole access sequence, every capacity in one
 * forward pass: Mattson et al.'s (1970) OPT stack with the next-reference time as the priority. The
 * distance of an access is the depth of its key in the stack just before the access; a MIN cache of
 * capacity C (demand paging: every missed key is inserted, the cached key whose next use is
 * farthest is evicted, never the key being inserted) hits it iff distance ≤ C, because the top C
 * entries of the stack are exactly that cache's contents (MIN is a stack algorithm). A first access
 * is {@link StackDistances#COLD}.
 *
 * <p>The update after an access to x at depth d (d = the new bottom for a first access): x goes to
 * the top, and the entries above its old depth are pushed down one priority step: a carry starts as
 * the old top entry and walks down positions 2..d−1; at each position the entry used later (lower
 * priority) of {carry, the entry there} becomes the carry and the other stays, and the final carry
 * takes position d. For each capacity C &lt; d that evicts, among the C entries of the old cache,
 * the one used farthest in the future: Belady's choice. Only the entries that beat the carry (the
 * running maxima of next use over positions 1..d−1) move; everything else keeps its position. They
 * are found with a max tree over positions (next use per position), each in O(log V) by a descent
 * that skips the runs that cannot beat the carry.
 *
 * <p>The previous production pass, kept as a second reference for {@link OptStack}: it computes the
 * same distances from a different definition (next-use priorities, not critical markers), so the
 * tests compare the two access by access. Cost: O((1 + m) log V) per access, where m is the number
 * of entries that move, which on Zipf traces grows with the stack (hundreds to thousands per
 * access): too slow for production, fine for tests. Ties: keys never used again all have priority
 * "never"; none of them beats another, which keeps the result independent of their order (no later
 * access can tell which of them a cache holds).
 */
final class MattsonOptStack {
  /** The next use of a key never accessed again. */
  static final int NEVER = Integer.MAX_VALUE;

  private MattsonOptStack() {}

  /**
   * The OPT stack distance of every access.
   *
   * @param ids dense key ids in access order, 0..distinct−1
   * @param length the accesses: {@code ids[0..length)}
   * @param distinct the number of distinct ids
   * @return distances, {@link StackDistances#COLD} for a first access
   */
  static int[] distances(int[] ids, int length, int distinct) {
    int[] next = nextUses(ids, length, distinct);
    int size = Integer.highestOneBit(Math.max(1, distinct)) << 1; // positions 1..distinct fit
    if (size <= distinct) {
      size <<= 1;
    }
    int[] tree = new int[2 * size]; // max next use per node; leaves: positions
    Arrays.fill(tree, -1);
    int[] slot = new int[size]; // id at each position
    int[] position = new int[distinct]; // 0: not in the stack yet
    int bottom = 0;
    int[] out = new int[length];
    for (int t = 0; t < length; t++) {
      int x = ids[t];
      int d = position[x];
      if (d == 0) {
        d = ++bottom;
        out[t] = StackDistances.COLD;
      } else {
        out[t] = d;
      }
      if (d > 1) {
        int carry = slot[1];
        int carryNext = tree[size + 1];
        int at = 1;
        while (carryNext != NEVER) {
          int r = firstAbove(tree, size, at + 1, d - 1, carryNext);
          if (r < 0) {
            break;
          }
          int moved = slot[r];
          int movedNext = tree[size + r];
          slot[r] = carry;
          position[carry] = r;
          set(tree, size, r, carryNext);
          carry = moved;
          carryNext = movedNext;
          at = r;
        }
        slot[d] = carry;
        position[carry] = d;
        set(tree, size, d, carryNext);
      }
      slot[1] = x;
      position[x] = 1;
      set(tree, size, 1, next[t]);
    }
    return out;
  }

  /** For each access, the index of the next access to the same id, or {@link #NEVER}. */
  static int[] nextUses(int[] ids, int length, int distinct) {
    int[] later = new int[distinct];
    Arrays.fill(later, NEVER);
    int[] next = new int[length];
    for (int t = length - 1; t >= 0; t--) {
      int id = ids[t];
      next[t] = later[id];
      later[id] = t;
    }
    return next;
  }

  private static void set(int[] tree, int size, int p, int value) {
    int i = p + size;
    tree[i] = value;
    for (i >>>= 1; i > 0; i >>>= 1) {
      int max = Math.max(tree[2 * i], tree[2 * i + 1]);
      if (tree[i] == max) {
        return; // the ancestors hold the same maxima
      }
      tree[i] = max;
    }
  }

  /** The first position in [lo, hi] whose next use is later than {@code value}, or −1. */
  private static int firstAbove(int[] tree, int size, int lo, int hi, int value) {
    if (lo > hi) {
      return -1;
    }
    int i = lo + size;
    if (tree[i] <= value) {
      // climb until a right sibling holds a later next use, then descend into it
      while (true) {
        if ((i & 1) == 0 && tree[i + 1] > value) {
          i++;
          break;
        }
        i >>>= 1;
        if (i <= 1) {
          return -1;
        }
      }
      while (i < size) {
        i <<= 1;
        if (tree[i] <= value) {
          i++;
        }
      }
    }
    int p = i - size;
    return p <= hi ? p : -1;
  }
}
