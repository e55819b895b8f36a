package io.prefixlog.streams.session;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decoded base bodies, least recently used first out, bounded in bytes and shared by every task of
 * the process (keys are {@code session/chain/seq}, which no two tasks share). The bases store keeps
 * most bases as ops against the record before them ({@link BaseStore}); this cache is what makes
 * the usual turn, encoded against the session's newest base, read no record at all.
 *
 * <p>Each entry carries the SHA-256 of its body, checked by value, not recomputed, against the
 * digest the session state holds for the base: an entry left by a transaction that was aborted and
 * replayed differently could otherwise stand for another body under the same key. Bodies put here
 * are the request bodies the validator checked against their digest, or rebuilt bodies checked the
 * same way.
 *
 * <p>A {@code LinkedHashMap} in access order under one lock: a stream thread holds it for a map
 * operation (well under a microsecond against about 100 µs of work per record), so it is not worth
 * a concurrent cache library.
 */
final class BaseCache {
  private record Entry(byte[] body, String sha256) {}

  private final long capacityBytes;
  private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(1024, 0.75f, true);
  private long bytes;

  BaseCache(long capacityBytes) {
    this.capacityBytes = capacityBytes;
  }

  /** The body cached under {@code key} if its digest is {@code sha256}, else null. */
  synchronized byte[] get(String key, String sha256) {
    Entry entry = entries.get(key);
    return entry != null && entry.sha256.equals(sha256) ? entry.body : null;
  }

  synchronized void put(String key, byte[] body, String sha256) {
    if (body.length > capacityBytes) {
      return;
    }
    Entry old = entries.put(key, new Entry(body, sha256));
    bytes += body.length - (old == null ? 0 : old.body.length);
    Iterator<Map.Entry<String, Entry>> eldest = entries.entrySet().iterator();
    while (bytes > capacityBytes && eldest.hasNext()) {
      bytes -= eldest.next().getValue().body.length;
      eldest.remove();
    }
  }

  synchronized void remove(String key) {
    Entry old = entries.remove(key);
    if (old != null) {
      bytes -= old.body.length;
    }
  }

  /** Drops every entry of the session (an erasure: its bodies leave the heap too). */
  synchronized void removeSession(String session) {
    String prefix = session + "/";
    Iterator<Map.Entry<String, Entry>> all = entries.entrySet().iterator();
    while (all.hasNext()) {
      Map.Entry<String, Entry> e = all.next();
      if (e.getKey().startsWith(prefix)) {
        bytes -= e.getValue().body.length;
        all.remove();
      }
    }
  }

  synchronized long bytes() {
    return bytes;
  }

  synchronized int size() {
    return entries.size();
  }
}
