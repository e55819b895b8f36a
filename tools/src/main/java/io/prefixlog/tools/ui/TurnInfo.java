package io.prefixlog.tools.ui;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectReader;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.ResponseInfo;
import java.io.IOException;
import java.util.Map;

/**
 * What the session index keeps of one turn: the record's metadata, never its body or ops, and where
 * the record is ({@code partition}, {@code offset}) so that a turn page fetches it by offset.
 *
 * @param chain the chain id ({@code ""} for version 2 records)
 * @param recordBytes the stored record's size: what the turn cost on the topic
 * @param baseSeq the base turn of a delta, or 0 for a keyframe
 * @param promptTokens the engine's prompt tokens, or -1 when it reported none
 * @param cachedTokens the engine's cached prompt tokens, or -1 when it reported none
 * @param status the HTTP status, or 0 when none was seen
 * @param latencyMs request to last response byte, or -1 when unknown
 * @param tenant the tenant the proxy recorded for the request ({@link
 *     TenantSource#RECORDED_HEADER}), or null
 */
record TurnInfo(
    String chain,
    long seq,
    int partition,
    long offset,
    long ts,
    String model,
    String path,
    String clientAddr,
    boolean keyframe,
    String keyframeReason,
    long baseSeq,
    long bodyLen,
    long recordBytes,
    int chainDepth,
    long prefixLen,
    long promptTokens,
    long cachedTokens,
    int status,
    double latencyMs,
    String tenant) {

  /** Only the fields the index keeps: Jackson skips the body and the ops without building them. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Header(
      @JsonProperty("ts") Long ts,
      @JsonProperty("model") String model,
      @JsonProperty("path") String path,
      @JsonProperty("client_addr") String clientAddr,
      @JsonProperty("kind") String kind,
      @JsonProperty("keyframe_reason") String keyframeReason,
      @JsonProperty("base_seq") Long baseSeq,
      @JsonProperty("chain_depth") Integer chainDepth,
      @JsonProperty("body_len") Long bodyLen,
      @JsonProperty("prefix_len") Long prefixLen,
      @JsonProperty("prompt_tokens") Long promptTokens,
      @JsonProperty("cached_tokens") Long cachedTokens,
      @JsonProperty("response") ResponseInfo response,
      @JsonProperty("headers") Map<String, String> headers) {}

  private static final ObjectReader HEADER = Json.mapper().readerFor(Header.class);

  /**
   * Reads a record value of the delta topic.
   *
   * @throws IOException when the value is not a delta record's JSON (the message never quotes it)
   */
  static TurnInfo read(String chain, long seq, int partition, long offset, byte[] value)
      throws IOException {
    Header h;
    try {
      h = HEADER.readValue(value);
    } catch (IOException e) {
      throw new IOException("not a delta record: " + e.getClass().getSimpleName());
    }
    if (h == null) {
      throw new IOException("the record is JSON null");
    }
    boolean keyframe = !"delta".equals(h.kind());
    ResponseInfo r = h.response();
    Long prompt = h.promptTokens();
    Long cached = h.cachedTokens();
    if (r != null && r.usage() != null) {
      prompt = prompt != null ? prompt : r.usage().promptTokens();
      cached = cached != null ? cached : r.usage().cachedTokens();
    }
    // Interned: a million turns share a handful of models, paths, addresses and reasons, and a
    // chain id is shared by every turn of its chain.
    return new TurnInfo(
        chain.intern(),
        seq,
        partition,
        offset,
        h.ts() == null ? 0 : h.ts(),
        h.model() == null ? "" : h.model().intern(),
        h.path() == null ? "" : h.path().intern(),
        h.clientAddr() == null ? "" : h.clientAddr().intern(),
        keyframe,
        h.keyframeReason() == null ? "" : h.keyframeReason().intern(),
        keyframe || h.baseSeq() == null ? 0 : h.baseSeq(),
        h.bodyLen() == null ? 0 : h.bodyLen(),
        value.length,
        h.chainDepth() == null ? 0 : h.chainDepth(),
        h.prefixLen() == null ? -1 : h.prefixLen(),
        prompt == null ? -1 : prompt,
        cached == null ? -1 : cached,
        r == null || r.status() == null ? 0 : r.status(),
        r == null || r.latencyMs() == null ? -1 : r.latencyMs(),
        h.headers() == null ? null : internOrNull(h.headers().get(TenantSource.RECORDED_HEADER)));
  }

  private static String internOrNull(String s) {
    return s == null ? null : s.intern();
  }

  /** A base that is not the turn before: a branch or a regeneration. */
  boolean branches() {
    return !keyframe && baseSeq != seq - 1;
  }
}
