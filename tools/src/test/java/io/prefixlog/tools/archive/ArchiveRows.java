package io.prefixlog.tools.archive;

import io.prefixlog.archive.read.ArchiveReader;
import java.util.concurrent.TimeUnit;

/** Waits for the sink to commit rows: the tests that read the archive share it. */
public final class ArchiveRows {
  private ArchiveRows() {}

  /** The table's info once it holds at least {@code rows} rows (at most 150 s). */
  public static ArchiveReader.TableInfo await(ArchiveReader reader, String table, long rows)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
    String last = "no table yet";
    while (System.nanoTime() < deadline) {
      ArchiveReader.TableInfo info = reader.info(table).orElse(null);
      if (info != null && info.rows() >= rows) {
        return info;
      }
      last = info == null ? "no table yet" : info.rows() + " rows";
      Thread.sleep(500);
    }
    throw new AssertionError(table + " did not reach " + rows + " rows: " + last);
  }
}
