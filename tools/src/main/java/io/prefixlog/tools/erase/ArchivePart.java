package io.prefixlog.tools.erase;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.tools.cli.Terminal;

/** The archive's share of an erasure (Iceberg tables); see io.prefixlog.archive.erase. */
final class ArchivePart {
  private ArchivePart() {}

  /** Erases the selection from the archive's tables; false when something failed. */
  static boolean erase(
      ArchiveSettings settings,
      String topicPrefix,
      Selection selection,
      Terminal terminal,
      EraseReport report) {
    report.failed("archive: not erased yet (this build has no archive eraser)");
    return false;
  }

  /** Rows of the selected sessions still in the archive. */
  static long count(ArchiveSettings settings, String topicPrefix, Selection selection) {
    return -1;
  }
}
