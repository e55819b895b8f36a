package io.prefixlog.tools.erase;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.erase.ArchiveEraser;
import io.prefixlog.archive.erase.ErasureSelection;
import io.prefixlog.archive.erase.TableErasure;
import io.prefixlog.cli.Causes;
import io.prefixlog.cli.Terminal;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.exceptions.ValidationException;

/** The archive's share of an erasure: the three Iceberg tables (see {@link ArchiveEraser}). */
final class ArchiveErasure {
  private ArchiveErasure() {}

  /** Erases the selection from the archive's tables; false when something failed. */
  static boolean erase(
      ArchiveSettings settings,
      String topicPrefix,
      Selection selection,
      Terminal terminal,
      EraseReport report) {
    try (ArchiveEraser eraser = ArchiveEraser.open(settings)) {
      List<TableErasure> tables =
          eraser.erase(
              ArchivedTopic.all(topicPrefix),
              selectionOf(selection),
              line -> terminal.err().println("prefixlog erase: archive " + line));
      tables.forEach(t -> report.done(t.summary()));
      return true;
    } catch (IOException | RuntimeIOException | ValidationException | IllegalStateException e) {
      report.failed(
          "archive: "
              + Causes.describe(e)
              + " (what was committed stays: rows already deleted are invisible to every reader;"
              + " run erase again to finish)");
      return false;
    }
  }

  /** Rows of the selected sessions still in the archive. */
  static long count(ArchiveSettings settings, String topicPrefix, Selection selection)
      throws IOException {
    try (ArchiveEraser eraser = ArchiveEraser.open(settings)) {
      return eraser.count(ArchivedTopic.all(topicPrefix), selectionOf(selection));
    }
  }

  private static ErasureSelection selectionOf(Selection selection) {
    return new ErasureSelection(
        selection.keys(),
        selection.kvSessionIds(),
        selection.before() == null ? null : Instant.ofEpochMilli(selection.before()));
  }
}
