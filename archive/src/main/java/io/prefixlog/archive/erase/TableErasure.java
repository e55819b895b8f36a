package io.prefixlog.archive.erase;

/**
 * What one erasure did to one table.
 *
 * @param table {@code namespace.name}
 * @param rowsDeleted rows removed (delta and lookup tables)
 * @param rowsScrubbed rows rewritten with their session ids cleared (KV events)
 * @param dataFilesRewritten data files replaced by files without those rows
 * @param deleteFilesWritten position-delete files committed first (and dropped by the rewrite)
 * @param snapshotsExpired snapshots expired after the rewrite
 * @param filesRemoved files the expiry deleted from the bucket, checked gone
 */
public record TableErasure(
    String table,
    long rowsDeleted,
    long rowsScrubbed,
    int dataFilesRewritten,
    int deleteFilesWritten,
    int snapshotsExpired,
    int filesRemoved) {

  /** True when the table held nothing of the selection (and was not changed). */
  public boolean untouched() {
    return dataFilesRewritten == 0;
  }

  /** One line for the command's report. */
  public String summary() {
    if (untouched()) {
      return "archive " + table + ": nothing of these sessions";
    }
    return String.format(
        "archive %s: %d rows deleted, %d rows' session ids cleared; %d data files rewritten"
            + " (after %d position-delete files), %d snapshots expired, %d files removed from the"
            + " bucket",
        table,
        rowsDeleted,
        rowsScrubbed,
        dataFilesRewritten,
        deleteFilesWritten,
        snapshotsExpired,
        filesRemoved);
  }
}
