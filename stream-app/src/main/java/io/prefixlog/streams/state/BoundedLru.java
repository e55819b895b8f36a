package io.prefixlog.streams.state;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * A map in least-recently-used order, bounded in bytes as its weigher counts them, shared by every
 * task of the process: the heap caches of the stream app are made of it. An entry heavier than the
 * whole bound is not kept.
 *
 * <p>A {@code LinkedHashMap} in access order under one lock: a stream thread holds it for a map
 * operation (well under a microsecond against the hundreds of microseconds of a record's work), so
 * it is not worth a concurrent cache library.
 *
 * @param <V> the values; keys are strings such as {@code session/chain/seq}, which no two tasks
 *     share
 */
public final class BoundedLru<V> {
  private final long capacityBytes;
  private final ToLongFunction<V> weigher;
  private final LinkedHashMap<String, V> entries = new LinkedHashMap<>(1024, 0.75f, true);
  private long bytes;

  /**
   * @param capacityBytes the bound; 0 keeps nothing
   * @param weigher the bytes an entry holds
   */
  public BoundedLru(long capacityBytes, ToLongFunction<V> weigher) {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("capacityBytes must be >= 0, got " + capacityBytes);
    }
    this.capacityBytes = capacityBytes;
    this.weigher = weigher;
  }

  /** The value under {@code key}, now the most recently used, or null. */
  public synchronized V get(String key) {
    return entries.get(key);
  }

  /** Puts {@code value} under {@code key}, then lets the least recently used go past the bound. */
  public synchronized void put(String key, V value) {
    long weight = weigher.applyAsLong(value);
    if (weight > capacityBytes) {
      remove(key);
      return;
    }
    V old = entries.put(key, value);
    bytes += weight - (old == null ? 0 : weigher.applyAsLong(old));
    Iterator<Map.Entry<String, V>> eldest = entries.entrySet().iterator();
    while (bytes > capacityBytes && eldest.hasNext()) {
      bytes -= weigher.applyAsLong(eldest.next().getValue());
      eldest.remove();
    }
  }

  public synchronized void remove(String key) {
    V old = entries.remove(key);
    if (old != null) {
      bytes -= weigher.applyAsLong(old);
    }
  }

  /** Removes every entry whose key starts with {@code prefix} (an erased session's). */
  public synchronized void removeByPrefix(String prefix) {
    Iterator<Map.Entry<String, V>> all = entries.entrySet().iterator();
    while (all.hasNext()) {
      Map.Entry<String, V> e = all.next();
      if (e.getKey().startsWith(prefix)) {
        bytes -= weigher.applyAsLong(e.getValue());
        all.remove();
      }
    }
  }

  public synchronized long bytes() {
    return bytes;
  }

  public synchronized int size() {
    return entries.size();
  }
}
