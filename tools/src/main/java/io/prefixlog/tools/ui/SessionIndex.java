package io.prefixlog.tools.ui;

import io.prefixlog.core.rebuild.TurnKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The UI's index of the delta topic: per session key, a summary for the sessions list and, per
 * turn, its metadata and where its record is. It is fed the topic from the beginning, newest last
 * ({@link #put}); a tombstone removes its turn and a session without turns is removed, so erased
 * sessions disappear from every page. Bodies are never held: a turn page fetches its records by
 * offset.
 *
 * <p>Why an in-memory index rebuilt from the topic and not a store of its own: the compacted topic
 * is already the durable truth, so two UI instances that read it agree, nothing has to be erased
 * twice, and a restart only costs a read of the metadata (the bodies are skipped by the parser).
 *
 * <p>Thread-safe: one writer (the follower), many readers (the HTTP threads).
 */
final class SessionIndex {
  /** What the sessions list is sorted by; each sorts largest (newest) first by default. */
  enum Sort {
    LAST("last activity", Comparator.comparingLong(Summary::last)),
    TURNS("turns", Comparator.comparingInt(Summary::turns)),
    BYTES("bytes", Comparator.comparingLong(Summary::bytes)),
    CACHED("cached share", Comparator.comparingDouble(Summary::cachedShare));

    final String label;
    final Comparator<Summary> order;

    Sort(String label, Comparator<Summary> order) {
      this.label = label;
      this.order = order.thenComparing(Summary::key);
    }

    static Optional<Sort> parse(String name) {
      for (Sort s : values()) {
        if (s.name().toLowerCase(Locale.ROOT).equals(name)) {
          return Optional.of(s);
        }
      }
      return Optional.empty();
    }

    String param() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One session as the list shows it.
   *
   * @param model the model of its newest turn
   * @param path the path of its newest turn
   * @param bytes the rebuilt bodies' bytes, summed over its turns
   * @param storedBytes what its records take on the topic
   * @param promptTokens the engine's prompt tokens summed over the turns that reported them
   * @param cachedTokens the engine's cached tokens summed over the same turns
   * @param tenant the tenant of its newest turn, or null
   */
  record Summary(
      String key,
      String model,
      String path,
      long first,
      long last,
      int turns,
      int chains,
      int branches,
      int errors,
      long bytes,
      long storedBytes,
      long promptTokens,
      long cachedTokens,
      String tenant) {

    /** Cached over prompt tokens, or -1 when no turn reported its tokens. */
    double cachedShare() {
      return promptTokens > 0 ? (double) Math.max(cachedTokens, 0) / promptTokens : -1;
    }
  }

  /**
   * A sessions list request.
   *
   * @param keyPrefix sessions whose key starts with it ({@code ""} for all)
   * @param model the newest turn's model, exactly, or {@code ""} for any
   * @param path the newest turn's path, exactly, or {@code ""} for any
   * @param from activity at or after (ms since the epoch), or {@link Long#MIN_VALUE}
   * @param to activity at or before (ms since the epoch), or {@link Long#MAX_VALUE}
   * @param page from 0
   * @param tenant sessions of this tenant only, or null for every session
   */
  record Query(
      String keyPrefix,
      String model,
      String path,
      long from,
      long to,
      Sort sort,
      boolean ascending,
      int page,
      int size,
      String tenant) {
    Query {
      Objects.requireNonNull(keyPrefix, "keyPrefix");
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(sort, "sort");
      if (page < 0 || size < 1) {
        throw new IllegalArgumentException(
            "page >= 0 and size >= 1 expected, got " + page + ", " + size);
      }
    }

    static Query all() {
      return new Query("", "", "", Long.MIN_VALUE, Long.MAX_VALUE, Sort.LAST, false, 0, 50, null);
    }

    boolean matches(Summary s) {
      return (tenant == null || tenant.equals(s.tenant()))
          && (model.isEmpty() || model.equals(s.model()))
          && (path.isEmpty() || path.equals(s.path()))
          && s.last() >= from
          && s.first() <= to;
    }
  }

  /** One page of the list: {@code matched} sessions in all, {@code rows} of them shown. */
  record Page(long matched, long sessions, List<Summary> rows) {}

  /** The turns of one session, keyed {@code chain/seq}. */
  private static final class Session {
    final Map<String, TurnInfo> turns = new HashMap<>();
    Summary summary;
  }

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private final NavigableMap<String, Session> sessions = new TreeMap<>();

  /** Sessions per model and per path (of their newest turn), kept as summaries change. */
  private final NavigableMap<String, Integer> models = new TreeMap<>();

  private final NavigableMap<String, Integer> paths = new TreeMap<>();

  /**
   * Every session's summary in each order, built on demand and reused while the index has not
   * changed, or for {@link #SORTED_MAX_AGE_NANOS} while it keeps changing: a page of the whole list
   * is then a slice, not a pass with a heap (about 90 ms at 100 k sessions on a loaded 2-core
   * machine), at the price of a list up to a second behind the index.
   */
  private final Map<String, Sorted> sorted = new java.util.concurrent.ConcurrentHashMap<>();

  static final long SORTED_MAX_AGE_NANOS = 1_000_000_000L;

  private record Sorted(long version, long builtNanos, Summary[] rows) {}

  private long version;
  private final ReadCounts counts = new ReadCounts();

  /**
   * Applies one record of the delta topic: a turn (its value) or a tombstone (null). A record whose
   * key or value cannot be read is counted ({@link #counts()}), never silently skipped.
   */
  void put(String key, byte[] value, int partition, long offset) {
    Optional<TurnKey> turn = TurnKey.parse(key);
    TurnInfo info = null;
    String problem = null;
    if (turn.isEmpty()) {
      problem = ReadCounts.where(partition, offset, "key is not session/chain/seq");
    } else if (value != null) {
      try {
        info = TurnInfo.read(turn.get().chain(), turn.get().seq(), partition, offset, value);
      } catch (IOException e) {
        problem = ReadCounts.where(partition, offset, e.getMessage());
      }
    }
    lock.writeLock().lock();
    try {
      version++;
      if (!counts.read(problem)) {
        return;
      }
      TurnKey k = turn.get();
      String turnId = k.chain() + "/" + k.seq();
      if (info == null) {
        Session s = sessions.get(k.sessionKey());
        if (s != null && s.turns.remove(turnId) != null) {
          if (s.turns.isEmpty()) {
            sessions.remove(k.sessionKey());
            replace(s, null);
          } else {
            replace(s, summarize(k.sessionKey(), s.turns.values()));
          }
        }
        return;
      }
      Session s = sessions.computeIfAbsent(k.sessionKey(), x -> new Session());
      s.turns.put(turnId, info);
      replace(s, summarize(k.sessionKey(), s.turns.values()));
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** Sets a session's summary (null: the session is gone), keeping the model and path counts. */
  private void replace(Session s, Summary next) {
    if (s.summary != null) {
      models.computeIfPresent(s.summary.model(), (k, n) -> n == 1 ? null : n - 1);
      paths.computeIfPresent(s.summary.path(), (k, n) -> n == 1 ? null : n - 1);
    }
    s.summary = next;
    if (next != null) {
      models.merge(next.model(), 1, Integer::sum);
      paths.merge(next.path(), 1, Integer::sum);
    }
  }

  private static Summary summarize(String key, Iterable<TurnInfo> turns) {
    TurnInfo newest = null;
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    int count = 0;
    int branches = 0;
    int errors = 0;
    long bytes = 0;
    long stored = 0;
    long prompt = 0;
    long cached = 0;
    TreeSet<String> chains = new TreeSet<>();
    for (TurnInfo t : turns) {
      count++;
      chains.add(t.chain());
      first = Math.min(first, t.ts());
      if (t.ts() >= last) {
        last = t.ts();
        newest = t;
      }
      branches += t.branches() ? 1 : 0;
      errors += t.status() >= 400 ? 1 : 0;
      bytes += t.bodyLen();
      stored += t.recordBytes();
      if (t.promptTokens() >= 0) {
        prompt += t.promptTokens();
        cached += Math.max(t.cachedTokens(), 0);
      }
    }
    return new Summary(
        key,
        newest.model(),
        newest.path(),
        first,
        last,
        count,
        chains.size(),
        branches,
        errors,
        bytes,
        stored,
        prompt,
        cached,
        newest.tenant());
  }

  /**
   * The sessions that match, sorted and paged, in one pass over the sessions (the prefix's range of
   * them): the first pages (the usual request) are selected with a heap bounded by the page's end,
   * so a page of 50 out of a million sessions costs a pass, not a sort; deep pages sort what
   * matched.
   */
  Page query(Query q) {
    if (q.keyPrefix().isEmpty()) {
      return slice(q, sorted(q.sort(), q.ascending()));
    }
    return select(q);
  }

  /** The page of {@code q} out of every session in its order: a walk that stops at the page. */
  private static Page slice(Query q, Summary[] all) {
    boolean everything =
        q.tenant() == null
            && q.model().isEmpty()
            && q.path().isEmpty()
            && q.from() == Long.MIN_VALUE
            && q.to() == Long.MAX_VALUE;
    long from = (long) q.page() * q.size();
    long end = from + q.size();
    List<Summary> rows = new ArrayList<>(q.size());
    if (everything) {
      for (long i = from; i < Math.min(end, all.length); i++) {
        rows.add(all[(int) i]);
      }
      return new Page(all.length, all.length, List.copyOf(rows));
    }
    long count = 0;
    for (Summary s : all) {
      if (q.matches(s)) {
        if (count >= from && count < end) {
          rows.add(s);
        }
        count++;
      }
    }
    return new Page(count, all.length, List.copyOf(rows));
  }

  private Summary[] sorted(Sort sort, boolean ascending) {
    String key = sort.name() + (ascending ? "+" : "-");
    long now = System.nanoTime();
    Sorted cached = sorted.get(key);
    Summary[] all;
    long v;
    lock.readLock().lock();
    try {
      v = version;
      if (cached != null
          && (cached.version() == v || now - cached.builtNanos() < SORTED_MAX_AGE_NANOS)) {
        return cached.rows();
      }
      all = new Summary[sessions.size()];
      int i = 0;
      for (Session s : sessions.values()) {
        all[i++] = s.summary;
      }
    } finally {
      lock.readLock().unlock();
    }
    Arrays.sort(all, ascending ? sort.order : sort.order.reversed());
    sorted.put(key, new Sorted(v, now, all));
    return all;
  }

  /** The page of a key-prefix search: one pass over the prefix's range, a bounded heap. */
  private Page select(Query q) {
    Comparator<Summary> order = q.ascending() ? q.sort().order : q.sort().order.reversed();
    long end = (long) (q.page() + 1) * q.size();
    boolean select = end <= 4096;
    PriorityQueue<Summary> heap =
        new PriorityQueue<>((int) Math.min(end, 4096) + 1, order.reversed());
    List<Summary> matched = new ArrayList<>();
    long count = 0;
    long total;
    lock.readLock().lock();
    try {
      total = sessions.size();
      NavigableMap<String, Session> range =
          q.keyPrefix().isEmpty()
              ? sessions
              : sessions.subMap(q.keyPrefix(), true, q.keyPrefix() + Character.MAX_VALUE, false);
      for (Session session : range.values()) {
        Summary s = session.summary;
        if (!q.matches(s)) {
          continue;
        }
        count++;
        if (!select) {
          matched.add(s);
        } else if (heap.size() < end) {
          heap.add(s);
        } else if (order.compare(s, heap.peek()) < 0) {
          heap.poll();
          heap.add(s);
        }
      }
    } finally {
      lock.readLock().unlock();
    }
    List<Summary> rows = select ? new ArrayList<>(heap) : matched;
    rows.sort(order);
    int from = (int) Math.min((long) q.page() * q.size(), rows.size());
    int to = (int) Math.min(end, rows.size());
    return new Page(count, total, List.copyOf(rows.subList(from, to)));
  }

  Optional<Summary> summary(String sessionKey) {
    lock.readLock().lock();
    try {
      Session s = sessions.get(sessionKey);
      return s == null ? Optional.empty() : Optional.of(s.summary);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The session's turns in time order (chain and seq break ties), or empty when it has none. */
  List<TurnInfo> turns(String sessionKey) {
    List<TurnInfo> turns;
    lock.readLock().lock();
    try {
      Session s = sessions.get(sessionKey);
      turns = s == null ? List.of() : new ArrayList<>(s.turns.values());
    } finally {
      lock.readLock().unlock();
    }
    List<TurnInfo> sorted = new ArrayList<>(turns);
    sorted.sort(
        Comparator.comparingLong(TurnInfo::ts)
            .thenComparing(TurnInfo::chain)
            .thenComparingLong(TurnInfo::seq));
    return List.copyOf(sorted);
  }

  Optional<TurnInfo> turn(String sessionKey, String chain, long seq) {
    lock.readLock().lock();
    try {
      Session s = sessions.get(sessionKey);
      return s == null ? Optional.empty() : Optional.ofNullable(s.turns.get(chain + "/" + seq));
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The sessions' models and paths (of their newest turns), for the filters' suggestions. */
  List<String> models() {
    return distinct(models);
  }

  List<String> paths() {
    return distinct(paths);
  }

  private List<String> distinct(NavigableMap<String, Integer> counts) {
    lock.readLock().lock();
    try {
      // Suggestions, not a report: the first 200 in order.
      return counts.keySet().stream().filter(v -> !v.isEmpty()).limit(200).toList();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** How many sessions the index holds. */
  int sessionCount() {
    lock.readLock().lock();
    try {
      return sessions.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The session keys, sorted: a copy. */
  List<String> sessionKeys() {
    lock.readLock().lock();
    try {
      return List.copyOf(sessions.keySet());
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Records read so far (tombstones and unreadable ones included), and the unreadable ones. */
  ReadCounts.Snapshot counts() {
    return counts.snapshot();
  }
}
