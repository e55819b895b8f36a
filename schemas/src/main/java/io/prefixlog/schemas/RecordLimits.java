package io.prefixlog.schemas;

/**
 * The one place the record size limits are derived from the capture limit, so the broker, the
 * topics, the producers and the consumers of every run mode agree on them.
 *
 * <p>A keyframe holds a whole body, which JSON escaping or base64 can grow by a third or more, plus
 * metadata: records are allowed twice the body limit plus 1 MiB. Broker ({@code message.max.bytes},
 * {@code log.segment.bytes}), topic ({@code max.message.bytes}), producer ({@code
 * max.request.size}) and consumer ({@code max.partition.fetch.bytes}) limits are all at least this.
 */
public final class RecordLimits {
  /** The capture limit when none is configured ({@code PREFIXLOG_MAX_BODY_BYTES}). */
  public static final long DEFAULT_MAX_BODY_BYTES = 16L << 20;

  /** What a record may hold besides twice the body: metadata, headers, batch framing. */
  public static final long RECORD_OVERHEAD_BYTES = 1L << 20;

  /** 34603008: the largest record for the default capture limit. */
  public static final long DEFAULT_MAX_RECORD_BYTES = maxRecordBytes(DEFAULT_MAX_BODY_BYTES);

  /**
   * Room a dead letter keeps for everything but the copy of the original value: its JSON fields and
   * detail, the record key, headers and the producer's record framing.
   */
  public static final long DEAD_LETTER_HEADROOM_BYTES = 64L << 10;

  private RecordLimits() {}

  /** The largest record for a capture limit of {@code maxBodyBytes}. */
  public static long maxRecordBytes(long maxBodyBytes) {
    if (maxBodyBytes <= 0) {
      throw new IllegalArgumentException("maxBodyBytes must be positive but was " + maxBodyBytes);
    }
    return Math.addExact(Math.multiplyExact(2, maxBodyBytes), RECORD_OVERHEAD_BYTES);
  }

  /** {@link #maxRecordBytes(long)} as the {@code int} the client settings take, capped. */
  public static int maxRecordBytesInt(long maxBodyBytes) {
    return (int) Math.min(Integer.MAX_VALUE, maxRecordBytes(maxBodyBytes));
  }

  /**
   * How many bytes of an original value a dead letter can copy (as base64, 4 characters per 3
   * bytes) and still be a record of at most {@code maxRecordBytes}, when its key is {@code
   * keyBytes} long: the key is written twice, as the record key and base64 in the letter.
   */
  public static long deadLetterValueBudget(long maxRecordBytes, long keyBytes) {
    if (maxRecordBytes <= 0) {
      throw new IllegalArgumentException(
          "maxRecordBytes must be positive but was " + maxRecordBytes);
    }
    if (keyBytes < 0) {
      throw new IllegalArgumentException("keyBytes must not be negative but was " + keyBytes);
    }
    long keyCost = keyBytes + base64Length(keyBytes);
    long room = maxRecordBytes - DEAD_LETTER_HEADROOM_BYTES - keyCost;
    return room <= 0 ? 0 : room / 4 * 3;
  }

  /** The length of padded base64 of {@code bytes} bytes. */
  public static long base64Length(long bytes) {
    return (bytes + 2) / 3 * 4;
  }
}
