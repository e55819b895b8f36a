package io.prefixlog.bridge.kv;

import io.prefixlog.schemas.kv.KvEventBatch;

/**
 * Works out one source's {@link ResumePoint} from its records in {@code kv.events}, read from the
 * newest backwards (the log is read in windows from its end, each window handed over newest record
 * first). It is settled at the newest batch (its number is the anchor; the gap markers after it may
 * cover more) or at the newest restart marker (a new run: nothing of it before the gap markers
 * after it); older records cannot change it then.
 */
final class ResumeFold {
  private boolean seen;
  private boolean settled;
  private long coveredTo = -1;
  private long anchorSeq = -1;
  private double anchorEngineTs = Double.NaN;

  /** The next older record of the source; ignored once settled. */
  void older(KvEventBatch record) {
    seen = true;
    if (settled) {
      return;
    }
    if (KvEventBatch.MARKER_GAP.equals(record.marker())) {
      coveredTo = Math.max(coveredTo, record.missingTo());
    } else if (KvEventBatch.MARKER_RESTART.equals(record.marker())) {
      settled = true; // the gap markers seen so far belong to the new run
    } else {
      settled = true;
      anchorSeq = record.seq();
      coveredTo = Math.max(coveredTo, record.seq());
      anchorEngineTs = record.engineTs() == null ? Double.NaN : record.engineTs();
    }
  }

  /** Whether older records can no longer change the result. */
  boolean settled() {
    return settled;
  }

  /**
   * Where the source stands, or {@code null} when no record of it was seen. Called with the log
   * read back to its beginning but not settled (only gap markers), it is what they cover.
   */
  ResumePoint result() {
    return seen ? new ResumePoint(coveredTo + 1, anchorSeq, anchorEngineTs) : null;
  }
}
