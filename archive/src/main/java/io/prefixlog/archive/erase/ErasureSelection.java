package io.prefixlog.archive.erase;

import java.time.Instant;
import java.util.Set;

/**
 * What to erase from the archive.
 *
 * @param sessionKeys the {@code session_key} values of delta and lookup rows
 * @param kvSessionIds values of the KV events' {@code session_id} to clear (the session keys and
 *     the raw ids the engine may have been given)
 * @param before null: every row of those sessions; else only the chains whose last delta row has
 *     {@code ts} before it (a chain repeats its earlier turns, so only whole chains can go), and
 *     the lookups of their turns; KV ids are cleared whatever the time
 */
public record ErasureSelection(Set<String> sessionKeys, Set<String> kvSessionIds, Instant before) {
  public ErasureSelection {
    sessionKeys = Set.copyOf(sessionKeys);
    kvSessionIds = Set.copyOf(kvSessionIds);
    if (sessionKeys.isEmpty()) {
      throw new IllegalArgumentException("no session to erase");
    }
  }
}
