package io.prefixlog.streams.session;

import io.prefixlog.core.delta.PrefixFingerprint;
import io.prefixlog.core.text.CodePointIndex;
import io.prefixlog.streams.state.BoundedLru;

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
 */
final class BaseCache {
  /**
   * A cached base: its bytes, their digest, their code-point index when it was built (the index of
   * a turn's body comes with its delta, extended from its base's: the next turn, encoded against
   * it, then counts no code point of what the two share), and their fingerprint states when the
   * turn computed them (the next turn's fingerprint is taken up from them).
   */
  private record Entry(byte[] body, String sha256, CodePointIndex index, long[] states) {}

  private final BoundedLru<Entry> entries;

  BaseCache(long capacityBytes) {
    this.entries = new BoundedLru<>(capacityBytes, entry -> entry.body.length);
  }

  /** The body cached under {@code key} if its digest is {@code sha256}, else null. */
  byte[] get(String key, String sha256) {
    Entry entry = entries.get(key);
    return entry != null && entry.sha256.equals(sha256) ? entry.body : null;
  }

  /** The code-point index cached with {@code body} under {@code key}, or null. */
  CodePointIndex index(String key, byte[] body) {
    Entry entry = entries.get(key);
    return entry != null && entry.body == body ? entry.index : null;
  }

  /**
   * The body cached under {@code key} if its digest is {@code sha256}, with its states, or null.
   */
  PrefixFingerprint.Known fingerprinted(String key, String sha256) {
    Entry entry = entries.get(key);
    return entry != null && entry.sha256.equals(sha256) && entry.states != null
        ? new PrefixFingerprint.Known(entry.body, entry.states)
        : null;
  }

  /**
   * @param index the body's code-point index, or null when it has none yet
   * @param states the body's fingerprint states, or null when they were not computed
   */
  void put(String key, byte[] body, String sha256, CodePointIndex index, long[] states) {
    entries.put(key, new Entry(body, sha256, index, states));
  }

  /**
   * Adds the code-point index built for the body cached under {@code key}, keeping its states; puts
   * the body without states when another entry (or none) is there.
   */
  void putIndex(String key, byte[] body, String sha256, CodePointIndex index) {
    Entry entry = entries.get(key);
    long[] states = entry != null && entry.body == body ? entry.states : null;
    entries.put(key, new Entry(body, sha256, index, states));
  }

  void remove(String key) {
    entries.remove(key);
  }

  /** Drops every entry of the session (an erasure: its bodies leave the heap too). */
  void removeSession(String session) {
    entries.removeByPrefix(session + "/");
  }

  long bytes() {
    return entries.bytes();
  }

  int size() {
    return entries.size();
  }
}
