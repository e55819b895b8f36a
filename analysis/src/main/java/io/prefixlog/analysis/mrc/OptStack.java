package io.prefixlog.analysis.mrc;

import java.util.Arrays;

/**
 * Exact OPT (Belady's MIN) stack distances for a whole access sequence, every capacity in one
 * forward pass, in O(log V) amortised time per access (V distinct keys): the critical-marker
 * algorithm of Bilardi, Ekanadham and Pattnaik, "Optimal on-line computation of stack distances for
 * MIN and OPT" (ACM Computing Frontiers 2017), on a timeline instead of their trees.
 *
 * <p>The distance of an access is the smallest capacity C at which a MIN cache hits it (demand
 * paging: every missed key is inserted, the cached key used farthest in the future is evicted,
 * never the key being inserted); MIN is a stack algorithm (Mattson et al. 1970), so it hits at
 * every C ≥ distance. A first access is {@link StackDistances#COLD}. No next-use times are needed:
 * whether MIN of capacity C hits an access is decided by the accesses up to it, which is why the
 * paper can compute it on line. (In interval terms: a hit keeps its key over the interval from its
 * previous use, during which the other C − 1 slots may hold at most C − 1 such intervals at any
 * time; MIN's set of hits is what choosing the intervals greedily in the order they end gives, and
 * the order they end is the order of the accesses.)
 *
 * <p><b>The state</b> (the paper's, renamed). The LRU stack: the keys by last access, most recent
 * first. One critical marker per capacity c + 1 for c = 1..V−1: a boundary in the LRU stack, "the
 * c-marker is under the top M(c) keys". The imbalance β(i) = #{c : M(c) ≤ i} − i for every LRU
 * depth i ≥ 0 is never negative. An access to the key at LRU depth D (0 = the top; D keys above it)
 * has OPT distance
 *
 * <pre>
 *   z = max { i &lt; D : β(i) = 0 },   distance = 1 + min { c : M(c) &gt; z },
 * </pre>
 *
 * and the update is: the key goes to the top of the LRU stack, every marker with M(c) ≤ D moves one
 * down with the keys above it (M(c) + 1), and the chosen marker is set to 1 (just under the key). A
 * first access puts the key on top, moves every marker one down, and adds the marker of the next
 * capacity at 1. With D = 0, the top key again, nothing changes and the distance is 1. The marker
 * set to 1 belongs to the smallest capacity that hits the access, so from the top the markers are
 * in the order in which their capacities last were the smallest to hit. Why these equations give
 * exactly the OPT stack distances is the paper's theorem; this class does not re-prove it: it
 * implements the equations, and the tests check them access by access against Mattson's stack
 * (below).
 *
 * <p><b>This implementation.</b> A key's place in the LRU stack is the timeline position of its
 * last access (positions grow with time; a key's old position is cleared when it is accessed
 * again), and a marker at LRU depth m is kept at the position of the m-th most recent key. In those
 * terms a marker above the accessed key stays where it is (the key moving to the top is what moves
 * it down one), a marker at the key's old position moves to the next live position after it (or to
 * the new one when there is none), and the others do not move. β is a running sum over live
 * positions from the newest: each position adds its markers and subtracts 1, so with w(s) = markers
 * at s − 1 for a live position (0 otherwise):
 *
 * <ul>
 *   <li>β over the D keys above the accessed one (old position p) is the suffix sum of w from a
 *       position τ; z corresponds to the smallest τ after the first live position following p whose
 *       suffix sum is 0, and the markers with M(c) &gt; z are those at positions before τ. A
 *       segment tree over positions with (sum, largest prefix sum) per node finds τ in O(log n); a
 *       second one, with the smallest marker level per position, gives min c and where it is.
 *   <li>The markers of one position are a leftist heap keyed by level (a whole position's markers
 *       move at once: meld; the chosen one is the heap's minimum: delete-min).
 *   <li>Live positions are a bitmap with a summary per 64 words (next live position after p).
 *   <li>When the timeline is full, the live positions are renumbered 0..live−1 in order (which
 *       keeps every marker's LRU depth) and the trees rebuilt; the timeline has at least twice as
 *       many positions as keys, so this costs O(1) amortised per access.
 * </ul>
 *
 * <p>Tests compare every distance with {@code MattsonOptStack} (Mattson's OPT stack by next use,
 * the previous implementation) and the curves with {@link NaiveMin} at every capacity.
 */
final class OptStack {
  private static final int NONE = Integer.MAX_VALUE; // no marker at a position

  private final int[] ids;
  private final int length;
  private final int cap; // timeline positions, a power of two
  private int top; // the next free position
  private int nextLevel; // markers 1..nextLevel-1 exist

  private final int[] position; // per key: its last access's position, -1 before it
  private final int[] owner; // per position: the key whose last access it is
  private final int[] heap; // per position: the root (smallest level) of its markers, 0 if none
  private final int[] markers; // per position: how many markers
  private final int[] left; // per level: leftist heap children and rank (null-path length)
  private final int[] right;
  private final int[] rank;
  private final long[] balance; // segment tree of w: (sum << 32) | (largest prefix sum & mask)
  private final int[] smallest; // segment tree: smallest marker level, NONE if none
  private final long[][] live; // live[0]: one bit per live position; live[l + 1]: words of live[l]

  private OptStack(int[] ids, int length, int distinct) {
    this.ids = ids;
    this.length = length;
    int c = Integer.highestOneBit(Math.max(1, distinct)) << 2; // > 2 × distinct
    if (c <= 0 || c > 1 << 29) {
      throw new IllegalStateException(distinct + " distinct keys: too many for the OPT pass");
    }
    this.cap = Math.max(64, c);
    position = new int[distinct];
    Arrays.fill(position, -1);
    owner = new int[cap];
    heap = new int[cap];
    markers = new int[cap];
    left = new int[Math.max(1, distinct)];
    right = new int[left.length];
    rank = new int[left.length];
    balance = new long[2 * cap];
    smallest = new int[2 * cap];
    Arrays.fill(smallest, NONE);
    int levels = 1;
    for (int words = cap >>> 6; words > 1; words = (words + 63) >>> 6) {
      levels++;
    }
    live = new long[levels][];
    int words = cap >>> 6;
    for (int l = 0; l < levels; l++) {
      live[l] = new long[words];
      words = (words + 63) >>> 6;
    }
  }

  /**
   * The OPT stack distance of every access.
   *
   * @param ids dense key ids in access order, 0..distinct−1
   * @param length the accesses: {@code ids[0..length)}
   * @param distinct the number of distinct ids
   * @return distances, {@link StackDistances#COLD} for a first access
   */
  static int[] distances(int[] ids, int length, int distinct) {
    return new OptStack(ids, length, distinct).run();
  }

  private int[] run() {
    int[] out = new int[length];
    for (int t = 0; t < length; t++) {
      if (top == cap) {
        compact();
      }
      int x = ids[t];
      int now = top++;
      int p = position[x];
      int chosen = 0; // the marker that goes under the accessed key, 0 for none
      if (p < 0) {
        out[t] = StackDistances.COLD;
        if (nextLevel > 0) {
          chosen = nextLevel;
        }
        nextLevel++;
      } else {
        int next = nextLive(p + 1); // the oldest of the keys above the accessed one
        int target;
        if (next < 0) {
          out[t] = 1; // the top key again
          target = now;
        } else {
          int from = next + 1;
          int imbalance = suffixSum(from);
          int tau = imbalance == 0 ? from : firstReaching(from, imbalance) + 1;
          int at = argSmallestBefore(tau);
          chosen = smallest[at + cap];
          out[t] = chosen + 1;
          heap[at] = meld(left[chosen], right[chosen]);
          markers[at]--;
          refresh(at);
          target = next;
        }
        // the markers just under the accessed key stay under the same number of keys
        if (markers[p] > 0) {
          heap[target] = meld(heap[target], heap[p]);
          markers[target] += markers[p];
          heap[p] = 0;
          markers[p] = 0;
          if (target != now) {
            refresh(target);
          }
        }
        clearLive(p);
        setBalance(p, 0);
        setSmallest(p, NONE);
      }
      position[x] = now;
      owner[now] = x;
      setLive(now);
      if (chosen != 0) {
        left[chosen] = 0;
        right[chosen] = 0;
        rank[chosen] = 1;
        heap[now] = meld(heap[now], chosen);
        markers[now]++;
      }
      refresh(now);
    }
    return out;
  }

  /** Renumbers the live positions 0..live−1, in order, and rebuilds the trees. */
  private void compact() {
    int n = 0;
    for (int s = nextLive(0); s >= 0; s = nextLive(s + 1)) {
      int x = owner[s];
      owner[n] = x;
      position[x] = n;
      heap[n] = heap[s];
      markers[n] = markers[s];
      n++;
    }
    Arrays.fill(heap, n, cap, 0);
    Arrays.fill(markers, n, cap, 0);
    for (long[] level : live) {
      Arrays.fill(level, 0);
    }
    for (int s = 0; s < n; s++) {
      setLive(s);
    }
    Arrays.fill(balance, 0);
    Arrays.fill(smallest, NONE);
    for (int s = 0; s < n; s++) {
      int w = markers[s] - 1;
      balance[s + cap] = pack(w, w);
      smallest[s + cap] = heap[s] == 0 ? NONE : heap[s];
    }
    for (int i = cap - 1; i > 0; i--) {
      balance[i] = combine(balance[2 * i], balance[2 * i + 1]);
      smallest[i] = Math.min(smallest[2 * i], smallest[2 * i + 1]);
    }
    top = n;
  }

  /** Both trees' leaves of a live position from its markers. */
  private void refresh(int s) {
    setBalance(s, markers[s] - 1);
    setSmallest(s, heap[s] == 0 ? NONE : heap[s]);
  }

  // ---- leftist heap of marker levels (smallest on top) ----

  private int meld(int a, int b) {
    if (a == 0) {
      return b;
    }
    if (b == 0) {
      return a;
    }
    if (b < a) {
      int swap = a;
      a = b;
      b = swap;
    }
    int r = meld(right[a], b); // depth ≤ rank(a) + rank(b) = O(log V)
    int l = left[a];
    if (rank[l] < rank[r]) {
      left[a] = r;
      right[a] = l;
      rank[a] = rank[l] + 1;
    } else {
      right[a] = r;
      rank[a] = rank[r] + 1;
    }
    return a;
  }

  // ---- segment tree of w: sums and largest prefix sums ----

  private static long pack(int sum, int maxPrefix) {
    return ((long) sum << 32) | (maxPrefix & 0xFFFF_FFFFL);
  }

  private static int sum(long node) {
    return (int) (node >> 32);
  }

  private static int maxPrefix(long node) {
    return (int) node;
  }

  private static long combine(long l, long r) {
    int sl = sum(l);
    return pack(sl + sum(r), Math.max(maxPrefix(l), sl + maxPrefix(r)));
  }

  private void setBalance(int s, int w) {
    long[] tree = balance;
    int i = s + cap;
    long leaf = pack(w, w);
    if (tree[i] == leaf) {
      return;
    }
    tree[i] = leaf;
    for (i >>>= 1; i > 0; i >>>= 1) {
      long node = combine(tree[2 * i], tree[2 * i + 1]);
      if (tree[i] == node) {
        return; // the ancestors hold the same sums
      }
      tree[i] = node;
    }
  }

  /** Σ w(s) for s ≥ from. */
  private int suffixSum(int from) {
    long[] tree = balance;
    int before = 0;
    for (int i = from + cap; i > 1; i >>>= 1) {
      if ((i & 1) == 1) {
        before += sum(tree[i - 1]);
      }
    }
    return sum(tree[1]) - before;
  }

  /** The first position j ≥ from with Σ w(from..j) ≥ target (target &gt; 0), or −1. */
  private int firstReaching(int from, int target) {
    long[] tree = balance;
    int i = from + cap;
    int acc = 0;
    while (true) {
      if (acc + maxPrefix(tree[i]) >= target) {
        while (i < cap) {
          i <<= 1;
          long l = tree[i];
          if (acc + maxPrefix(l) < target) {
            acc += sum(l);
            i++;
          }
        }
        return i - cap;
      }
      acc += sum(tree[i]);
      while ((i & 1) == 1) {
        i >>>= 1;
        if (i == 0) {
          return -1;
        }
      }
      i++;
    }
  }

  // ---- segment tree of the smallest marker level per position ----

  private void setSmallest(int s, int level) {
    int[] tree = smallest;
    int i = s + cap;
    if (tree[i] == level) {
      return;
    }
    tree[i] = level;
    for (i >>>= 1; i > 0; i >>>= 1) {
      int min = Math.min(tree[2 * i], tree[2 * i + 1]);
      if (tree[i] == min) {
        return;
      }
      tree[i] = min;
    }
  }

  /** The position of the smallest marker level at positions [0, end). */
  private int argSmallestBefore(int end) {
    int[] tree = smallest;
    int best = NONE;
    int node = 0;
    for (int lo = cap, hi = end + cap; lo < hi; lo >>>= 1, hi >>>= 1) {
      if ((lo & 1) == 1) {
        if (tree[lo] < best) {
          best = tree[lo];
          node = lo;
        }
        lo++;
      }
      if ((hi & 1) == 1) {
        hi--;
        if (tree[hi] < best) {
          best = tree[hi];
          node = hi;
        }
      }
    }
    if (best == NONE) {
      // cannot happen: z markers are in the top z (β(z) = 0), and there are V − 1 ≥ D > z of them
      throw new IllegalStateException("OPT pass: no marker below the zero of the imbalance");
    }
    while (node < cap) {
      node <<= 1;
      if (tree[node] != best) {
        node++;
      }
    }
    return node - cap;
  }

  // ---- live positions ----

  private void setLive(int s) {
    for (long[] words : live) {
      int w = s >>> 6;
      boolean wasEmpty = words[w] == 0;
      words[w] |= 1L << s;
      if (!wasEmpty) {
        return;
      }
      s = w;
    }
  }

  private void clearLive(int s) {
    for (long[] words : live) {
      int w = s >>> 6;
      words[w] &= ~(1L << s);
      if (words[w] != 0) {
        return;
      }
      s = w;
    }
  }

  /** The first live position ≥ from, or −1. */
  private int nextLive(int from) {
    int level = 0;
    int s = from;
    while (true) {
      long[] words = live[level];
      int w = s >>> 6;
      if (w >= words.length) {
        return -1;
      }
      long bits = words[w] & (-1L << s);
      if (bits != 0) {
        s = (w << 6) + Long.numberOfTrailingZeros(bits);
        break;
      }
      if (++level == live.length) {
        return -1;
      }
      s = w + 1;
    }
    while (level > 0) {
      level--;
      s = (s << 6) + Long.numberOfTrailingZeros(live[level][s]);
    }
    return s;
  }
}
