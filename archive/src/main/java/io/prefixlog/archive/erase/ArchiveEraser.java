package io.prefixlog.archive.erase;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.TableSnapshots;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.archive.read.DataFileRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;

/**
 * Erases sessions from the archive's tables, table by table, in three committed steps:
 *
 * <ol>
 *   <li><b>Row-level deletes.</b> Every data file that may hold affected rows (by its column
 *       statistics) is read; the positions of those rows go into a position-delete file per data
 *       file, committed in one row delta (with, for KV batches, the rows' scrubbed copies), so
 *       every reader stops seeing them at once, even if a later step fails.
 *   <li><b>Rewrite.</b> Each such data file is replaced by one without the affected rows, and its
 *       position-delete files are dropped in the same commit. The sink's appends meanwhile are no
 *       conflict: the commit only replaces files it read.
 *   <li><b>Expiry.</b> Every snapshot but the current one is expired with its unreferenced files,
 *       so the old data files, the delete files, manifests and manifest lists leave the bucket;
 *       each removed file is then checked gone. Time travel to before the erasure goes with them,
 *       as it must.
 * </ol>
 *
 * <p>What stays in the bucket holds none of the rows' values: old {@code metadata.json} files hold
 * schemas and snapshot lists only, and manifests keep column bounds truncated to 16 characters
 * (Iceberg's default {@code truncate(16)} metrics), shorter than any meaningful excerpt. Files a
 * failed sink commit left behind are not deleted: a concurrent sink's files not yet committed look
 * the same, and deleting those would lose data.
 *
 * <p>A second run finds no affected row and commits nothing.
 */
public final class ArchiveEraser implements AutoCloseable {
  private final JdbcCatalog catalog;

  private ArchiveEraser(JdbcCatalog catalog) {
    this.catalog = catalog;
  }

  /** Opens the catalog. */
  public static ArchiveEraser open(ArchiveSettings settings) {
    return new ArchiveEraser(ArchiveReader.openCatalog(settings));
  }

  /** Erases the selection from each topic's table; progress gets one line per table and step. */
  public List<TableErasure> erase(
      List<ArchivedTopic> topics, ErasureSelection selection, Consumer<String> progress)
      throws IOException {
    List<TableErasure> results = new ArrayList<>();
    Set<String> erasedRequestIds = new HashSet<>();
    for (ArchivedTopic topic : ordered(topics)) {
      TableIdentifier id = TableIdentifier.parse(topic.table());
      if (!catalog.tableExists(id)) {
        results.add(new TableErasure(topic.table(), 0, 0, 0, 0, 0, 0));
        continue;
      }
      Table table = catalog.loadTable(id);
      RowRule rule = rule(id.name(), table, selection, erasedRequestIds);
      results.add(eraseFrom(table, topic.table(), rule, erasedRequestIds, progress));
    }
    return results;
  }

  /** Rows of the selection still visible in the tables (what {@code erase --check} reports). */
  public long count(List<ArchivedTopic> topics, ErasureSelection selection) throws IOException {
    long rows = 0;
    Set<String> erasedRequestIds = new HashSet<>();
    for (ArchivedTopic topic : ordered(topics)) {
      TableIdentifier id = TableIdentifier.parse(topic.table());
      if (!catalog.tableExists(id)) {
        continue;
      }
      Table table = catalog.loadTable(id);
      RowRule rule = rule(id.name(), table, selection, erasedRequestIds);
      for (Candidate c : candidates(table, rule, erasedRequestIds)) {
        rows += c.affected.size();
      }
    }
    return rows;
  }

  /** Deltas first: with {@code before}, the lookups to erase are those of the erased turns. */
  private static List<ArchivedTopic> ordered(List<ArchivedTopic> topics) {
    List<ArchivedTopic> ordered = new ArrayList<>(topics);
    ordered.sort(
        java.util.Comparator.comparingInt(t -> t.table().endsWith(".session_deltas") ? 0 : 1));
    return ordered;
  }

  private RowRule rule(
      String name, Table table, ErasureSelection selection, Set<String> erasedRequestIds)
      throws IOException {
    return switch (name) {
      case "session_deltas" -> {
        if (selection.before() == null) {
          yield RowRule.deleting(selection.sessionKeys(), row -> true);
        }
        Set<String> oldChains = chainsEndedBefore(table, selection);
        yield RowRule.deleting(selection.sessionKeys(), row -> oldChains.contains(chainOf(row)));
      }
      case "chunk_lookups" ->
          selection.before() == null
              ? RowRule.deleting(selection.sessionKeys(), row -> true)
              : RowRule.deleting(
                  selection.sessionKeys(),
                  row -> erasedRequestIds.contains(String.valueOf(row.getField("request_id"))));
      case "kv_events" -> RowRule.scrubbingKv(selection.kvSessionIds());
      case "requests_metadata" ->
          selection.before() == null
              ? RowRule.deleting(selection.sessionKeys(), row -> true)
              : RowRule.deleting(
                  selection.sessionKeys(),
                  row ->
                      erasedRequestIds.contains(String.valueOf(row.getField("request_id")))
                          || sampledOutBefore(row, selection.before().toEpochMilli()));
      default -> throw new IllegalArgumentException("not an archive table: " + name);
    };
  }

  /** {@code session/chain} of the selection's chains whose last row came before {@code before}. */
  private Set<String> chainsEndedBefore(Table table, ErasureSelection selection)
      throws IOException {
    Map<String, Long> last = new HashMap<>();
    RowRule all = RowRule.deleting(selection.sessionKeys(), row -> true);
    for (FileScanTask task : tasks(table, all)) {
      forEachRow(
          table,
          task.file(),
          (pos, row) -> {
            if (all.affects(row)) {
              Object ts = row.getField("ts");
              last.merge(chainOf(row), ts == null ? Long.MIN_VALUE : (Long) ts, Math::max);
            }
          });
    }
    long before = selection.before().toEpochMilli();
    Set<String> old = new HashSet<>();
    last.forEach(
        (chain, ts) -> {
          if (ts < before) {
            old.add(chain);
          }
        });
    return old;
  }

  /**
   * A metadata row of a request whose body was not kept has no turn, so no chain to judge it by: it
   * goes when its own {@code ts} is before the cut, as the topic's tombstones do.
   */
  private static boolean sampledOutBefore(Record row, long before) {
    Object ts = row.getField("ts");
    return row.getField("turn") == null
        && row.getField("body_omitted") != null
        && ts != null
        && (Long) ts < before;
  }

  private static String chainOf(Record row) {
    Object chain = row.getField("chain");
    return row.getField("session_key") + "/" + (chain == null ? "" : chain);
  }

  /** One data file with rows the rule affects. */
  private static final class Candidate {
    final DataFile file;
    final List<DeleteFile> deletes;
    final Set<Long> deleted = new HashSet<>();
    final List<Long> affected = new ArrayList<>();
    final List<Record> scrubbedCopies = new ArrayList<>();

    Candidate(DataFile file, List<DeleteFile> deletes) {
      this.file = file;
      this.deletes = deletes;
    }
  }

  private TableErasure eraseFrom(
      Table table,
      String name,
      RowRule rule,
      Set<String> erasedRequestIds,
      Consumer<String> progress)
      throws IOException {
    Snapshot start = table.currentSnapshot();
    List<Candidate> candidates = candidates(table, rule, erasedRequestIds);
    if (candidates.isEmpty()) {
      progress.accept(name + ": nothing of these sessions");
      return new TableErasure(name, 0, 0, 0, 0, 0, 0);
    }
    long affectedRows = candidates.stream().mapToLong(c -> c.affected.size()).sum();
    boolean scrubbing = candidates.stream().anyMatch(c -> !c.scrubbedCopies.isEmpty());

    // 1. Row-level deletes (and scrubbed copies), one commit.
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, System.nanoTime())
            .format(FileFormat.PARQUET)
            .build();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .deleteFileFormat(FileFormat.PARQUET)
            .build();
    RowDelta delta = table.newRowDelta();
    Map<String, DeleteFile> written = new LinkedHashMap<>();
    Set<CharSequence> referenced = new HashSet<>();
    for (Candidate c : candidates) {
      PartitionSpec spec = table.specs().get(c.file.specId());
      EncryptedOutputFile out = files.newOutputFile(spec, c.file.partition());
      PositionDeleteWriter<Record> deletes =
          writers.newPositionDeleteWriter(out, spec, c.file.partition());
      try (deletes) {
        PositionDelete<Record> delete = PositionDelete.create();
        for (long pos : c.affected) {
          deletes.write(delete.set(c.file.location(), pos));
        }
      }
      DeleteFile deleteFile = deletes.toDeleteFile();
      written.put(c.file.location(), deleteFile);
      delta.addDeletes(deleteFile);
      referenced.add(c.file.location());
      if (!c.scrubbedCopies.isEmpty()) {
        delta.addRows(writeData(files, writers, spec, c.file, c.scrubbedCopies));
      }
    }
    if (start != null) {
      delta.validateFromSnapshot(start.snapshotId());
    }
    delta.validateDataFilesExist(referenced).commit();
    progress.accept(
        String.format(
            "%s: %d rows %s in %d files (row-level deletes committed)",
            name, affectedRows, scrubbing ? "scrubbed" : "deleted", candidates.size()));

    // 2. Rewrite each file without them; drop its position deletes.
    long afterDeletes = table.currentSnapshot().snapshotId();
    RewriteFiles rewrite = table.newRewrite();
    List<String> removed = new ArrayList<>();
    for (Candidate c : candidates) {
      PartitionSpec spec = table.specs().get(c.file.specId());
      Set<Long> gone = new HashSet<>(c.affected);
      gone.addAll(c.deleted);
      List<Record> kept = new ArrayList<>();
      forEachRow(
          table,
          c.file,
          (pos, row) -> {
            if (!gone.contains(pos)) {
              kept.add(row.copy());
            }
          });
      rewrite.deleteFile(c.file);
      removed.add(c.file.location());
      for (DeleteFile old : c.deletes) {
        rewrite.deleteFile(old);
        removed.add(old.location());
      }
      DeleteFile mine = written.get(c.file.location());
      rewrite.deleteFile(mine);
      removed.add(mine.location());
      if (!kept.isEmpty()) {
        rewrite.addFile(writeData(files, writers, spec, c.file, kept));
      }
    }
    rewrite.validateFromSnapshot(afterDeletes).commit();
    progress.accept(name + ": " + candidates.size() + " data files rewritten without those rows");

    // 3. Expire every older snapshot, and check the replaced files are gone from the bucket.
    table.refresh();
    int snapshotsBefore = TableSnapshots.count(table);
    table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
    // Iceberg's incremental cleanup removes a replaced file only when the snapshot that replaced
    // it expires, and that snapshot (the rewrite, or a later sink commit on top of it) is the one
    // kept. No kept snapshot references the replaced files as live any more, and nothing adds them
    // back (they are the sink's old files and this erasure's delete files): they are deleted here.
    for (String location : removed) {
      table.io().deleteFile(location);
    }
    table.refresh();
    int expired = snapshotsBefore - TableSnapshots.count(table);
    List<String> left = new ArrayList<>();
    for (String location : removed) {
      if (table.io().newInputFile(location).exists()) {
        left.add(location);
      }
    }
    if (!left.isEmpty()) {
      throw new IOException(
          name + ": the snapshot expiry left " + left.size() + " replaced files: " + left);
    }
    progress.accept(
        name + ": " + expired + " snapshots expired, " + removed.size() + " files removed");
    long deleted = scrubbing ? 0 : affectedRows;
    long scrubbed = scrubbing ? affectedRows : 0;
    return new TableErasure(
        name, deleted, scrubbed, candidates.size(), written.size(), expired, removed.size());
  }

  private List<Candidate> candidates(Table table, RowRule rule, Set<String> erasedRequestIds)
      throws IOException {
    Map<String, Candidate> byFile = new LinkedHashMap<>();
    for (FileScanTask task : tasks(table, rule)) {
      if (byFile.containsKey(task.file().location())) {
        continue; // another split of a file already read whole
      }
      Candidate c = new Candidate(task.file(), List.copyOf(task.deletes()));
      for (DeleteFile delete : task.deletes()) {
        if (delete.content() != FileContent.POSITION_DELETES) {
          throw new IOException(
              table.name()
                  + " has equality deletes, which prefixlog never writes: compact the table with"
                  + " an engine that applies them, then erase again");
        }
        readPositions(table, delete, c.file.location(), c.deleted);
      }
      boolean deltas = table.name().endsWith("session_deltas");
      forEachRow(
          table,
          c.file,
          (pos, row) -> {
            if (c.deleted.contains(pos) || !rule.affects(row)) {
              return;
            }
            c.affected.add(pos);
            Record scrubbed = rule.scrubbed(row);
            if (scrubbed != null) {
              c.scrubbedCopies.add(scrubbed);
            }
            if (deltas && row.getField("request_id") != null) {
              erasedRequestIds.add(row.getField("request_id").toString());
            }
          });
      if (!c.affected.isEmpty()) {
        byFile.put(c.file.location(), c);
      }
    }
    return List.copyOf(byFile.values());
  }

  private static List<FileScanTask> tasks(Table table, RowRule rule) throws IOException {
    if (table.currentSnapshot() == null) {
      return List.of();
    }
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned =
        table.newScan().filter(rule.candidates()).ignoreResiduals().planFiles()) {
      planned.forEach(tasks::add);
    }
    return tasks;
  }

  private interface RowConsumer {
    void accept(long position, Record row);
  }

  /** Every row of a data file, with its position, in the table's current schema. */
  private static void forEachRow(Table table, ContentFile<?> file, RowConsumer consumer)
      throws IOException {
    DataFileRows.forEach(table, file, consumer::accept);
  }

  private static final Schema POSITIONS =
      new Schema(
          Types.NestedField.required(2147483546, "file_path", Types.StringType.get()),
          Types.NestedField.required(2147483545, "pos", Types.LongType.get()));

  private static void readPositions(Table table, DeleteFile delete, String dataFile, Set<Long> out)
      throws IOException {
    DataFileRows.forEach(
        table,
        delete,
        POSITIONS,
        (position, row) -> {
          if (dataFile.equals(row.getField("file_path").toString())) {
            out.add((Long) row.getField("pos"));
          }
        });
  }

  private static DataFile writeData(
      OutputFileFactory files,
      GenericFileWriterFactory writers,
      PartitionSpec spec,
      DataFile like,
      List<Record> rows) {
    EncryptedOutputFile out = files.newOutputFile(spec, like.partition());
    DataWriter<Record> writer = writers.newDataWriter(out, spec, like.partition());
    try (writer) {
      rows.forEach(writer::write);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return writer.toDataFile();
  }

  @Override
  public void close() throws IOException {
    catalog.close();
  }
}
