package io.prefixlog.core.kv;

/**
 * How much of a payload {@link KvBatchDecoder} keeps before it refuses the batch. Each one-byte
 * integer hash becomes a 16-digit hex string of about 60 bytes of heap, so without these a payload
 * could cost some 60 times its size; a value kept is an event, a block hash, or an element of
 * {@code extra_keys} (a map entry counts twice, its key and its value), at most about 64 bytes
 * each. Both are checked against an array's header, before the array is allocated.
 *
 * @param maxHashesPerEvent the most {@code block_hashes} one event may name: a request's blocks are
 *     its tokens over the block size, so 65,536 holds a 1M-token context in 16-token blocks
 * @param maxValuesPerBatch the most values one batch may keep, hashes and events included
 */
public record KvDecodeLimits(int maxHashesPerEvent, long maxValuesPerBatch) {
  /** 1M tokens of context in vLLM's default 16-token blocks. */
  public static final int DEFAULT_MAX_HASHES_PER_EVENT = 65_536;

  /**
   * 2^20 values, about 64 MiB decoded: a scheduler step that stores 65,536 blocks, evicts as many
   * (one event each) and carries extra keys for each still fits about three times over.
   */
  public static final long DEFAULT_MAX_VALUES_PER_BATCH = 1L << 20;

  public static final KvDecodeLimits DEFAULTS =
      new KvDecodeLimits(DEFAULT_MAX_HASHES_PER_EVENT, DEFAULT_MAX_VALUES_PER_BATCH);

  public KvDecodeLimits {
    if (maxHashesPerEvent < 1) {
      throw new IllegalArgumentException("maxHashesPerEvent must be >= 1: " + maxHashesPerEvent);
    }
    if (maxValuesPerBatch < 1) {
      throw new IllegalArgumentException("maxValuesPerBatch must be >= 1: " + maxValuesPerBatch);
    }
  }
}
