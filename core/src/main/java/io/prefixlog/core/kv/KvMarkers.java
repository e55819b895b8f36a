package io.prefixlog.core.kv;

import io.prefixlog.schemas.kv.KvEventBatch;
import java.util.Objects;

/**
 * The bridge-generated marker records of {@code kv.events}: {@code gap} (sequence numbers lost for
 * good) and {@code restart} (the sequence went backwards). Either tells a consumer to clear what it
 * holds for the source and rebuild from the records that follow.
 */
public final class KvMarkers {
  private KvMarkers() {}

  /**
   * A gap marker.
   *
   * @param seq the sequence number received when the loss was noticed
   * @param missingFrom the first sequence number lost
   * @param missingTo the last sequence number lost (inclusive)
   * @param nowMs when the marker was made, epoch ms
   */
  public static KvEventBatch gap(
      KvSource source, long seq, long missingFrom, long missingTo, long nowMs) {
    Objects.requireNonNull(source, "source");
    if (missingFrom < 0 || missingTo < missingFrom) {
      throw new IllegalArgumentException(
          "gap range must be 0 <= from <= to: " + missingFrom + ".." + missingTo);
    }
    return marker(source, seq, nowMs, KvEventBatch.MARKER_GAP, missingFrom, missingTo);
  }

  /**
   * A restart marker.
   *
   * @param seq the sequence number that went backwards (the restarted engine's)
   * @param nowMs when the marker was made, epoch ms
   */
  public static KvEventBatch restart(KvSource source, long seq, long nowMs) {
    Objects.requireNonNull(source, "source");
    return marker(source, seq, nowMs, KvEventBatch.MARKER_RESTART, null, null);
  }

  /** A marker record of {@code source}: no events, only the marker and its missing range. */
  private static KvEventBatch marker(
      KvSource source, long seq, long nowMs, String marker, Long missingFrom, Long missingTo) {
    return new KvEventBatch(
        KvEventBatch.SCHEMA_VERSION,
        source.id(),
        source.endpoint(),
        source.dataParallelRank(),
        source.topic(),
        requireSeq(seq),
        nowMs,
        null,
        marker,
        missingFrom,
        missingTo,
        null);
  }

  private static long requireSeq(long seq) {
    if (seq < 0) {
      throw new IllegalArgumentException("seq must be >= 0: " + seq);
    }
    return seq;
  }
}
