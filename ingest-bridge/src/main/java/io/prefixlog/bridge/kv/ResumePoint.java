package io.prefixlog.bridge.kv;

/**
 * Where a source's log in {@code kv.events} stands, read back from Kafka when the bridge starts:
 * the first sequence number no record accounts for yet, and the last batch published in the
 * engine's current run (the anchor), whose engine time tells whether the engine that answers now is
 * still the one that published it.
 *
 * @param next the first sequence number neither a batch nor a gap marker covers (0 after a restart
 *     marker)
 * @param anchorSeq the sequence number of the last batch published since the last restart marker,
 *     or -1 when there is none
 * @param anchorEngineTs that batch's {@code engine_ts}, or {@code NaN}
 */
record ResumePoint(long next, long anchorSeq, double anchorEngineTs) {
  ResumePoint {
    if (next < 0) {
      throw new IllegalArgumentException("next must be >= 0: " + next);
    }
    if (anchorSeq >= next) {
      throw new IllegalArgumentException(
          "the anchor " + anchorSeq + " must lie below next " + next);
    }
  }

  /** Whether a batch of the current run is known, to check the engine against. */
  boolean hasAnchor() {
    return anchorSeq >= 0 && !Double.isNaN(anchorEngineTs);
  }
}
