package io.prefixlog.streams.query;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.prefixlog.core.delta.BaseInfo;
import io.prefixlog.core.delta.SessionState;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What {@code GET /state/sessions/{session_key}} answers: a session's state in the stream app,
 * metadata only. The bases' bodies stay in the store; their digests, sizes and depths are what a
 * reader can check against the deltas topic.
 *
 * <p>Times are stream time (record timestamps, as the eviction judges them), in epoch ms: a session
 * loses its bases at {@code bases_expire_ms} and its chain at {@code state_expires_ms} once the
 * stream time of its partition passes them, not on the wall clock.
 *
 * @param host the instance that holds the key ({@code application.server}): the same whichever
 *     instance was asked
 * @param partition the state partition of the key
 * @param chain the current chain (the earlier chains of the session are in the deltas topic only)
 * @param turns turns in the current chain ({@code next_seq - 1})
 * @param dormant true when the bases were evicted (idle past the TTL) and the chain kept
 * @param basesExpireMs when the bases go; absent when there are none
 * @param baseLog the records of the bases store the kept bases are rebuilt from ({@link
 *     io.prefixlog.core.delta.BaseLog})
 */
public record SessionStateView(
    @JsonProperty("session_key") String sessionKey,
    @JsonProperty("host") String host,
    @JsonProperty("partition") int partition,
    @JsonProperty("chain") String chain,
    @JsonProperty("turns") long turns,
    @JsonProperty("next_seq") long nextSeq,
    @JsonProperty("last_seen_ms") long lastSeenMs,
    @JsonProperty("dormant") boolean dormant,
    @JsonProperty("bases_expire_ms") Long basesExpireMs,
    @JsonProperty("state_expires_ms") long stateExpiresMs,
    @JsonProperty("base_bytes") long baseBytes,
    @JsonProperty("bases") List<Base> bases,
    @JsonProperty("base_log") List<LogEntry> baseLog) {

  public SessionStateView {
    Objects.requireNonNull(sessionKey, "sessionKey");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(chain, "chain");
    bases = List.copyOf(bases);
    baseLog = List.copyOf(baseLog);
  }

  /** A kept base: its turn, the SHA-256 of its body, its depth below its keyframe, its size. */
  public record Base(
      @JsonProperty("seq") long seq,
      @JsonProperty("sha256") String sha256,
      @JsonProperty("chain_depth") int chainDepth,
      @JsonProperty("length") int length) {}

  /** A record of the bases store: a whole body, or ops against the record before it. */
  public record LogEntry(@JsonProperty("seq") long seq, @JsonProperty("whole") boolean whole) {}

  /**
   * The view of a stored state.
   *
   * @param ttl {@code PREFIXLOG_SESSION_TTL}
   * @param seqRetention {@code PREFIXLOG_SESSION_SEQ_RETENTION}
   */
  public static SessionStateView of(
      String sessionKey,
      String host,
      int partition,
      SessionState state,
      Duration ttl,
      Duration seqRetention) {
    List<Base> bases =
        state.bases().stream()
            .map(b -> new Base(b.seq(), b.sha256(), b.chainDepth(), b.length()))
            .toList();
    List<LogEntry> log =
        state.log().entries().stream().map(e -> new LogEntry(e.seq(), e.whole())).toList();
    boolean dormant = state.bases().isEmpty();
    return new SessionStateView(
        sessionKey,
        host,
        partition,
        state.chain(),
        state.nextSeq() - 1,
        state.nextSeq(),
        state.lastSeenMs(),
        dormant,
        dormant ? null : plus(state.lastSeenMs(), ttl),
        plus(state.lastSeenMs(), seqRetention),
        state.bases().stream().mapToLong(BaseInfo::length).sum(),
        bases,
        log);
  }

  private static long plus(long ms, Duration d) {
    long add = d.toMillis();
    return ms > Long.MAX_VALUE - add ? Long.MAX_VALUE : ms + add;
  }
}
