package io.prefixlog.tools.analyze;

import java.util.Objects;

/**
 * What the records of one cache (a model) say about its chunks.
 *
 * @param model the model name as in the records ({@code ""} when none)
 * @param unit what chunk sizes and {@code seq_len} count
 * @param chunkSize the chunk size of the first record
 * @param mixedChunkSizes whether records disagree on the chunk size
 * @param kvBytesPerChunk KV bytes of one chunk from the first LMCache record with {@code shapes}
 *     and {@code dtypes}, or 0 when unknown
 * @param mixedKvBytes whether LMCache records disagree on it
 * @param lmcacheRecords records that are LMCache lookup-log lines
 * @param firstTimestamp earliest timestamp, Unix seconds
 * @param lastTimestamp latest timestamp, Unix seconds
 */
record CacheInfo(
    String model,
    Lookup.ChunkUnit unit,
    int chunkSize,
    boolean mixedChunkSizes,
    long kvBytesPerChunk,
    boolean mixedKvBytes,
    long lmcacheRecords,
    double firstTimestamp,
    double lastTimestamp) {

  CacheInfo {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(unit, "unit");
  }

  /** Collects a cache's facts from its records. */
  static final class Builder {
    private final Lookup.ChunkUnit unit;
    private int chunkSize;
    private boolean mixedChunkSizes;
    private long kvBytes;
    private boolean mixedKvBytes;
    private long lmcache;
    private double first = Double.POSITIVE_INFINITY;
    private double last = Double.NEGATIVE_INFINITY;

    Builder(Lookup.ChunkUnit unit) {
      this.unit = unit;
    }

    void add(Lookup lookup) {
      if (chunkSize == 0) {
        chunkSize = lookup.chunkSize();
      } else if (chunkSize != lookup.chunkSize()) {
        mixedChunkSizes = true;
      }
      if (lookup.kvBytesPerChunk() > 0) {
        if (kvBytes == 0) {
          kvBytes = lookup.kvBytesPerChunk();
        } else if (kvBytes != lookup.kvBytesPerChunk()) {
          mixedKvBytes = true;
        }
      }
      if (lookup.lmcache()) {
        lmcache++;
      }
      first = Math.min(first, lookup.timestamp());
      last = Math.max(last, lookup.timestamp());
    }

    CacheInfo build(String model) {
      return new CacheInfo(
          model, unit, chunkSize, mixedChunkSizes, kvBytes, mixedKvBytes, lmcache, first, last);
    }
  }
}
