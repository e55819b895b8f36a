package io.prefixlog.archive;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * What the erasure and the maintenance both say of a table's history: how many snapshots it keeps,
 * before and after they expire some, so that their reports count alike.
 */
public final class TableSnapshots {
  private TableSnapshots() {}

  /** The snapshots {@code table} keeps, as its metadata last read lists them. */
  public static int count(Table table) {
    int n = 0;
    for (Snapshot ignored : table.snapshots()) {
      n++;
    }
    return n;
  }
}
