package io.prefixlog.archive.maintain;

import java.util.ArrayList;
import java.util.List;

/**
 * What one maintenance run did to one table (with a dry run: what it would have done).
 *
 * @param table {@code namespace.name}
 * @param snapshotsExpired snapshots expired
 * @param expiredFilesDeleted files only the expired snapshots used (data files compacted away,
 *     manifests, manifest lists), deleted from the bucket
 * @param partitionsCompacted partitions whose small files were rewritten
 * @param filesCompacted small data files replaced
 * @param filesWritten sorted data files that replaced them
 * @param rowsRewritten rows in those files (the same before and after, or nothing is committed)
 * @param filesWithDeletes data files left alone because row-level deletes apply to them (an erase
 *     that stopped between its two commits; the next erase rewrites them)
 * @param manifestsBefore data manifests of the current snapshot before the manifest step
 * @param manifestsAfter data manifests after it
 * @param orphansRemoved files under the table's location that nothing references, old enough, and
 *     removed
 * @param orphanBytes their size
 * @param dryRun nothing was committed or deleted
 */
public record TableMaintenance(
    String table,
    int snapshotsExpired,
    int expiredFilesDeleted,
    int partitionsCompacted,
    int filesCompacted,
    int filesWritten,
    long rowsRewritten,
    int filesWithDeletes,
    int manifestsBefore,
    int manifestsAfter,
    int orphansRemoved,
    long orphanBytes,
    boolean dryRun) {

  /** One line for the command's report. */
  public String summary() {
    List<String> parts = new ArrayList<>();
    String verb = dryRun ? "would be " : "";
    parts.add(
        snapshotsExpired
            + " snapshots "
            + verb
            + "expired ("
            + expiredFilesDeleted
            + " files only they used "
            + verb
            + "deleted)");
    parts.add(
        filesCompacted
            + " small files in "
            + partitionsCompacted
            + " partitions "
            + verb
            + "compacted into "
            + (dryRun
                ? "sorted files"
                : filesWritten + " sorted files (" + rowsRewritten + " rows)"));
    if (filesWithDeletes > 0) {
      parts.add(filesWithDeletes + " files with row-level deletes left for erase to finish");
    }
    parts.add("manifests " + manifestsBefore + " -> " + manifestsAfter);
    parts.add(orphansRemoved + " orphan files " + verb + "removed (" + orphanBytes + " bytes)");
    return (dryRun ? "dry run: " : "") + table + ": " + String.join("; ", parts);
  }
}
