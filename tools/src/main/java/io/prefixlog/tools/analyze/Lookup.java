package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.LookupRequest;
import java.util.Objects;

/**
 * One input line or topic record, parsed: a chunk-hash lookup record of prefixlog or a line of
 * LMCache's lookup-hash log (the same fields, read the same way).
 *
 * @param timestamp Unix seconds with a fraction, as in the input
 * @param model {@code model_name}, or {@code ""} when the record names none
 * @param chunkSize units per chunk, at least 1
 * @param seqLen units of the request, tail included
 * @param keys the chunk hashes as 64-bit keys (see {@link LookupParser#key}); never modified. As
 *     parsed, a version 2 record's are its {@code tail_hashes}; {@link Trace} makes them the whole
 *     list
 * @param unit what {@code chunk_size} and {@code seq_len} count
 * @param lmcache whether the line has LMCache's {@code dtypes}/{@code shapes} and no {@code
 *     chunk_unit}: a line of LMCache's own log
 * @param promptTokens the engine's prompt tokens, or {@link LookupRequest#UNKNOWN}
 * @param cachedTokens the engine's cached prompt tokens, or {@link LookupRequest#UNKNOWN}
 * @param kvBytesPerChunk KV-cache bytes of one chunk from LMCache's shapes × dtypes, or 0
 * @param sessionKey {@code session_key}, or {@code ""} when the record has none (LMCache's lines):
 *     only the routing what-if uses it, for session affinity
 * @param sampledOut whether the record says {@code body_omitted}: a hash-only lookup of a request
 *     whose body capture sampling left out (its hashes are the bridge's, as exact as any other)
 * @param upstream {@code upstream}, where the capture proxy forwarded the request, or {@code ""}:
 *     only the engine figures beside the routing what-if use it
 */
record Lookup(
    double timestamp,
    String model,
    int chunkSize,
    long seqLen,
    long[] keys,
    ChunkUnit unit,
    boolean lmcache,
    long promptTokens,
    long cachedTokens,
    long kvBytesPerChunk,
    String sessionKey,
    boolean sampledOut,
    String upstream) {

  /** What {@code chunk_size} and {@code seq_len} count ({@code chunk_unit}). */
  enum ChunkUnit {
    TOKENS("tokens"),
    BYTES("bytes");

    private final String wireName;

    ChunkUnit(String wireName) {
      this.wireName = wireName;
    }

    String wireName() {
      return wireName;
    }
  }

  Lookup {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(sessionKey, "sessionKey");
    Objects.requireNonNull(upstream, "upstream");
  }

  /** The same lookup with other hashes: a version 2 record's once resolved. */
  Lookup withKeys(long[] wholeKeys) {
    return new Lookup(
        timestamp,
        model,
        chunkSize,
        seqLen,
        wholeKeys,
        unit,
        lmcache,
        promptTokens,
        cachedTokens,
        kvBytesPerChunk,
        sessionKey,
        sampledOut,
        upstream);
  }

  /** The engine's view of this lookup, under the cache (model) name {@code cache}. */
  LookupRequest request(String cache) {
    return new LookupRequest(
        timestampMs(), cache, keys, chunkSize, seqLen, promptTokens, cachedTokens);
  }

  /** The timestamp in epoch milliseconds, rounded down. */
  long timestampMs() {
    return (long) Math.floor(timestamp * 1000);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Lookup that
        && Double.compare(timestamp, that.timestamp) == 0
        && model.equals(that.model)
        && chunkSize == that.chunkSize
        && seqLen == that.seqLen
        && java.util.Arrays.equals(keys, that.keys)
        && unit == that.unit
        && lmcache == that.lmcache
        && promptTokens == that.promptTokens
        && cachedTokens == that.cachedTokens
        && kvBytesPerChunk == that.kvBytesPerChunk
        && sessionKey.equals(that.sessionKey)
        && upstream.equals(that.upstream);
  }

  @Override
  public int hashCode() {
    return Objects.hash(timestamp, model, chunkSize, seqLen, unit) * 31
        + java.util.Arrays.hashCode(keys);
  }

  @Override
  public String toString() {
    return "Lookup[timestamp="
        + timestamp
        + ", model="
        + model
        + ", chunkSize="
        + chunkSize
        + ", seqLen="
        + seqLen
        + ", chunks="
        + keys.length
        + ", unit="
        + unit.wireName()
        + (lmcache ? ", lmcache" : "")
        + "]";
  }
}
