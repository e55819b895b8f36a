package io.prefixlog.analysis.mrc;

import java.util.Arrays;
import java.util.Objects;

/**
 * One request's cache lookup, as a chunk-hash lookup record (docs/design.md#records) or a line of
 * LMCache's lookup-hash log describes it.
 *
 * @param timestampMs when the request arrived, epoch milliseconds (LMCache's float seconds × 1000)
 * @param model the model name; each model has its own cache (see {@link MrcAnalyzer})
 * @param chunkKeys the full chunks' hashes in prompt order, as 64-bit keys (a hex hash maps to the
 *     {@code long} of its 16 hex digits); the array is copied
 * @param chunkWeight units (tokens or bytes) per full chunk: the chunk size
 * @param seqLen the request's total units, tail included; at least {@code chunkKeys.length ×
 *     chunkWeight}
 * @param promptTokens the engine-reported prompt tokens, or {@link #UNKNOWN}
 * @param cachedTokens the engine-reported cached prompt tokens, or {@link #UNKNOWN}
 */
public record LookupRequest(
    long timestampMs,
    String model,
    long[] chunkKeys,
    long chunkWeight,
    long seqLen,
    long promptTokens,
    long cachedTokens) {

  /** An engine figure that the record does not carry. */
  public static final long UNKNOWN = -1;

  public LookupRequest {
    Objects.requireNonNull(model, "model");
    chunkKeys = Objects.requireNonNull(chunkKeys, "chunkKeys").clone();
    checkShape(chunkKeys.length, chunkWeight, seqLen, promptTokens, cachedTokens);
  }

  /** A request without engine figures. */
  public static LookupRequest of(
      long timestampMs, String model, long[] chunkKeys, long chunkWeight, long seqLen) {
    return new LookupRequest(timestampMs, model, chunkKeys, chunkWeight, seqLen, UNKNOWN, UNKNOWN);
  }

  /** This request with the engine's prompt and cached token counts. */
  public LookupRequest withEngineTokens(long promptTokens, long cachedTokens) {
    return new LookupRequest(
        timestampMs, model, chunkKeys, chunkWeight, seqLen, promptTokens, cachedTokens);
  }

  /** A copy of the chunk keys. */
  @Override
  public long[] chunkKeys() {
    return chunkKeys.clone();
  }

  public int chunkCount() {
    return chunkKeys.length;
  }

  public long chunkKey(int index) {
    return chunkKeys[index];
  }

  /** The array itself, for the analyzer's hot path: never modified there. */
  long[] keysNoCopy() {
    return chunkKeys;
  }

  static void checkShape(
      int chunks, long chunkWeight, long seqLen, long promptTokens, long cachedTokens) {
    if (chunkWeight < 0) {
      throw new IllegalArgumentException("chunkWeight must be >= 0, got " + chunkWeight);
    }
    long full;
    try {
      full = Math.multiplyExact(chunks, chunkWeight);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(
          chunks + " chunks of weight " + chunkWeight + " overflow a long", e);
    }
    if (seqLen < full) {
      throw new IllegalArgumentException(
          "seqLen "
              + seqLen
              + " is less than its "
              + chunks
              + " full chunks of "
              + chunkWeight
              + " ("
              + full
              + ")");
    }
    if (promptTokens < UNKNOWN || cachedTokens < UNKNOWN) {
      throw new IllegalArgumentException(
          "promptTokens and cachedTokens must be >= 0 or UNKNOWN (-1), got "
              + promptTokens
              + " and "
              + cachedTokens);
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof LookupRequest that
        && timestampMs == that.timestampMs
        && model.equals(that.model)
        && Arrays.equals(chunkKeys, that.chunkKeys)
        && chunkWeight == that.chunkWeight
        && seqLen == that.seqLen
        && promptTokens == that.promptTokens
        && cachedTokens == that.cachedTokens;
  }

  @Override
  public int hashCode() {
    return Objects.hash(timestampMs, model, chunkWeight, seqLen, promptTokens, cachedTokens) * 31
        + Arrays.hashCode(chunkKeys);
  }

  @Override
  public String toString() {
    return "LookupRequest[timestampMs="
        + timestampMs
        + ", model="
        + model
        + ", chunks="
        + chunkKeys.length
        + ", chunkWeight="
        + chunkWeight
        + ", seqLen="
        + seqLen
        + ", promptTokens="
        + promptTokens
        + ", cachedTokens="
        + cachedTokens
        + "]";
  }
}
