package io.prefixlog.tools.erase;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The sessions an erasure is about.
 *
 * @param sessions session key → how the command line named it ({@code --session}, {@code
 *     --session-id conversation-42 (HMAC)}, …), in the order given
 * @param kvSessionIds what the engine's KV events may call these sessions: the session keys (the
 *     proxy's {@code X-Session-ID} when it sets it) and the raw ids given
 * @param before epoch millis: only chains whose last turn came before it; null for all
 */
record Selection(Map<String, String> sessions, Set<String> kvSessionIds, Long before) {
  Selection {
    sessions = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(sessions));
    kvSessionIds = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(kvSessionIds));
  }

  Set<String> keys() {
    return sessions.keySet();
  }

  /** The session a {@code session_key/…} key (or a bare session key) belongs to, if selected. */
  String sessionOf(String key) {
    if (key == null) {
      return null;
    }
    int slash = key.indexOf('/');
    String session = slash < 0 ? key : key.substring(0, slash);
    return sessions.containsKey(session) ? session : null;
  }

  /** Session keys, sorted, for messages. */
  List<String> sortedKeys() {
    return sessions.keySet().stream().sorted().toList();
  }

  static Selection of(Map<String, String> sessions, Set<String> rawIds, Long before) {
    Objects.requireNonNull(rawIds, "rawIds");
    Set<String> kv = new LinkedHashSet<>(sessions.keySet());
    kv.addAll(rawIds);
    return new Selection(sessions, kv, before);
  }
}
