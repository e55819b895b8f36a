package io.prefixlog.core.rebuild;

/**
 * What a rebuild found, for one session or in total.
 *
 * @param turns delta records examined (tombstones not included)
 * @param rebuiltOk turns whose rebuilt body matched {@code body_len} and {@code body_sha256}
 * @param checksumMismatches turns rebuilt to bytes that differ from the record's length or digest
 * @param brokenChains turns that could not be rebuilt (missing, erased or broken base, ops out of
 *     range)
 * @param malformed records (or input lines) that could not be read or lack required fields
 * @param erased tombstones: turns deliberately erased (not a failure)
 * @param missingTurns seqs within a session's range present neither as record nor as tombstone
 * @param notFound the requested session or turn was absent or erased (0 or 1)
 * @param bytesRebuilt total size of the verified bodies
 */
public record Counts(
    long turns,
    long rebuiltOk,
    long checksumMismatches,
    long brokenChains,
    long malformed,
    long erased,
    long missingTurns,
    long notFound,
    long bytesRebuilt) {

  /**
   * Everything that did not check out: each counts as one failure.
   *
   * @param allowGaps whether missing turns are tolerated (compaction removes the tombstones of
   *     erased turns after {@code delete.retention.ms}, and retention removes a session's oldest
   *     turns, both of which leave gaps)
   */
  public long failures(boolean allowGaps) {
    return checksumMismatches
        + brokenChains
        + malformed
        + notFound
        + (allowGaps ? 0 : missingTurns);
  }
}
