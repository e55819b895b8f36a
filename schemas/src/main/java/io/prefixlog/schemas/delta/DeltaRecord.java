package io.prefixlog.schemas.delta;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.prefixlog.schemas.request.ResponseInfo;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One turn of a session, schema version 3, keyed {@code session_key/chain/seq} on {@code
 * session.deltas}.
 *
 * <p>A {@code full} record (a keyframe) carries the body as the raw event did; a {@code delta}
 * record carries {@code ops} against the earlier turn {@code base_seq} of the same session and
 * chain. Either way {@code body_len} and {@code body_sha256} describe the rebuilt bytes, so every
 * rebuild is checked. {@link #toString()} never shows the body.
 *
 * <p>A chain is the run of turns a session has against one stream-app state, numbered from 1. Why
 * it exists: a session whose state is lost (its partition moved, its state expired after idling)
 * starts counting at 1 again, and under version 2's key {@code session_key/seq} the new turn 1
 * replaced the old one under compaction, orphaning every delta based on it. The chain id makes
 * every key unique forever without any state that can expire. Version 2 records (no {@code chain},
 * key {@code session_key/seq}) are still read: their chain is the empty string.
 *
 * @param chain 8 hex digits fixed by the chain's first turn; null on version 2 records
 * @param keyframeReason why a keyframe was written ({@code first_turn}, {@code no_close_base},
 *     {@code chain_limit}, {@code not_utf8}); absent on deltas
 * @param chainDepth deltas between this record and its keyframe (0 for a keyframe): the rebuild
 *     cost, bounded by the configured keyframe interval
 */
public record DeltaRecord(
    @JsonProperty("schema_version") Integer schemaVersion,
    @JsonProperty("session_key") String sessionKey,
    @JsonProperty("seq") Long seq,
    @JsonProperty("chain") String chain,
    @JsonProperty("request_id") String requestId,
    @JsonProperty("ts") Long ts,
    @JsonProperty("model") String model,
    @JsonProperty("session_key_source") String sessionKeySource,
    @JsonProperty("client_addr") String clientAddr,
    @JsonProperty("user_agent") String userAgent,
    @JsonProperty("headers") Map<String, String> headers,
    @JsonProperty("method") String method,
    @JsonProperty("path") String path,
    @JsonProperty("kind") String kind,
    @JsonProperty("keyframe_reason") String keyframeReason,
    @JsonProperty("body") String body,
    @JsonProperty("body_encoding") String bodyEncoding,
    @JsonProperty("base_seq") Long baseSeq,
    @JsonProperty("base_sha256") String baseSha256,
    @JsonProperty("ops") List<DeltaOp> ops,
    @JsonProperty("chain_depth") Integer chainDepth,
    @JsonProperty("body_len") Long bodyLen,
    @JsonProperty("body_sha256") String bodySha256,
    @JsonProperty("prefix_len") Long prefixLen,
    @JsonProperty("truncated") Boolean truncated,
    @JsonProperty("prompt_tokens") Long promptTokens,
    @JsonProperty("cached_tokens") Long cachedTokens,
    @JsonProperty("prefix_cache_hit_rate") Double prefixCacheHitRate,
    @JsonProperty("response") ResponseInfo response) {

  public static final int SCHEMA_VERSION = 3;

  /** The previous layout, still read: no {@code chain}, key {@code session_key/seq}. */
  public static final int SCHEMA_VERSION_V2 = 2;

  public static final String KIND_FULL = "full";
  public static final String KIND_DELTA = "delta";

  public DeltaRecord {
    headers = headers == null ? null : Collections.unmodifiableSortedMap(new TreeMap<>(headers));
    ops = ops == null ? null : List.copyOf(ops);
  }

  /**
   * The record key: {@code session_key/chain/seq} ({@code session_key/seq} when chain is empty).
   */
  public static String key(String sessionKey, String chain, long seq) {
    return chain == null || chain.isEmpty()
        ? sessionKey + "/" + seq
        : sessionKey + "/" + chain + "/" + seq;
  }

  /**
   * The same turn in another layout: {@code schemaVersion} 3 with {@code chain}, or 2 with a null
   * chain (tests and benchmarks compare the two).
   */
  public DeltaRecord withLayout(int schemaVersion, String chain) {
    return new DeltaRecord(
        schemaVersion,
        sessionKey,
        seq,
        chain,
        requestId,
        ts,
        model,
        sessionKeySource,
        clientAddr,
        userAgent,
        headers,
        method,
        path,
        kind,
        keyframeReason,
        body,
        bodyEncoding,
        baseSeq,
        baseSha256,
        ops,
        chainDepth,
        bodyLen,
        bodySha256,
        prefixLen,
        truncated,
        promptTokens,
        cachedTokens,
        prefixCacheHitRate,
        response);
  }

  /** This record's key. */
  @JsonIgnore
  public String key() {
    return key(sessionKey, chain, seq);
  }

  /**
   * The session part of a record key, version 3 ({@code session_key/chain/seq}) or 2 ({@code
   * session_key/seq}): everything before the first {@code /} (a session key is hex).
   */
  public static String sessionOfKey(String key) {
    int slash = key.indexOf('/');
    if (slash <= 0) {
      throw new IllegalArgumentException(
          "delta key is not session_key/chain/seq nor session_key/seq: " + key);
    }
    return key.substring(0, slash);
  }

  @JsonIgnore
  public boolean isKeyframe() {
    return KIND_FULL.equals(kind);
  }

  @Override
  public String toString() {
    return "DeltaRecord[sessionKey="
        + sessionKey
        + ", chain="
        + chain
        + ", seq="
        + seq
        + ", kind="
        + kind
        + ", baseSeq="
        + baseSeq
        + ", ops="
        + (ops == null ? 0 : ops.size())
        + ", bodyLen="
        + bodyLen
        + ", body=<redacted>]";
  }
}
