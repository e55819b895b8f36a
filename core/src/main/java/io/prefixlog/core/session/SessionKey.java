package io.prefixlog.core.session;

import java.util.Objects;

/**
 * A derived session key and the signal it came from.
 *
 * @param key truncated keyed hash, lower-case hex; never the raw signal
 * @param source where the signal was found: {@code header:<name>}, {@code body:session_id}, {@code
 *     body:user}, {@code conversation} (the client tuple and the conversation's first user message)
 *     or {@code fallback} (the client tuple alone: client address, model, user agent)
 */
public record SessionKey(String key, String source) {
  public SessionKey {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(source, "source");
  }
}
