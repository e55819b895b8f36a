package io.prefixlog.archive.maintain;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.TableSnapshots;
import io.prefixlog.archive.maintain.MaintenancePolicy.Step;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.archive.read.DataFileRows;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ExpireSnapshots;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RewriteManifests;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.RollingDataWriter;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Keeps the archive's tables small in file count while the sink adds a data file, a manifest, a
 * manifest list and a metadata file to each table every commit (every minute in docker-compose).
 * One run of a table, through Iceberg's core Java API (no engine), in four steps, each committed on
 * its own ({@link MaintenancePolicy.Step}):
 *
 * <ol>
 *   <li><b>Expire</b> the snapshots older than the retention (keeping the newest few), and delete
 *       the files only they used: the small files an earlier run compacted away, old manifests and
 *       manifest lists.
 *   <li><b>Compact</b>: per partition (a day of {@code kafka_ts}) with enough small data files,
 *       read their rows, sort them by session ({@link #sortOrder}) and write them as files of the
 *       target size, replacing the small ones in one {@link RewriteFiles} commit (batched when
 *       there is a lot). A session's rows of a day are then in one or two files, which Iceberg
 *       finds by their {@code session_key} bounds. The sink's appends meanwhile are no conflict; a
 *       concurrent erase of the same files is (the later commit is refused). The replaced files
 *       stay readable until their snapshots expire at a later run.
 *   <li><b>Manifests</b>: merge the data manifests smaller than the table's manifest target size
 *       into as few as hold them.
 *   <li><b>Orphans</b>: list the table's location and delete what no retained snapshot and no
 *       metadata file references, when older than the minimum age: counted from now, and for data
 *       files also from the table's last append (a stopped sink may still commit what it wrote when
 *       it resumes), which each run records in {@link #LAST_APPEND_PROPERTY} before expiry removes
 *       the append snapshots; data files are kept while that time is not known.
 * </ol>
 *
 * <p>Rows are never changed: a compaction writes exactly the rows it read (checked before it
 * commits). Data files with row-level deletes (an erase that stopped between its two commits) are
 * left for the next erase, which rewrites them.
 */
public final class ArchiveMaintainer implements AutoCloseable {
  /** The snapshot summary property marking maintenance commits, valued with the step. */
  public static final String SUMMARY_PROPERTY = "prefixlog.maintenance";

  /**
   * The table property holding the time of the newest append (a sink commit) a run has seen: the
   * orphan step counts the age of data files from it, and expiry (this run's, or an erase's)
   * removes the append snapshots themselves.
   */
  public static final String LAST_APPEND_PROPERTY = "prefixlog.last-append-ms";

  /** Input bytes rewritten per compaction commit: what a failure can cost, what a commit holds. */
  private static final long COMMIT_INPUT_BYTES = 512 * MaintenancePolicy.MIB;

  private static final long PROGRESS_EVERY_NANOS = 10_000_000_000L;

  private static final int IO_THREADS = 4;

  private final JdbcCatalog catalog;
  private final Clock clock;
  private final ExecutorService io;

  private ArchiveMaintainer(JdbcCatalog catalog, Clock clock) {
    this.catalog = catalog;
    this.clock = clock;
    // Expiry reads one manifest list per expired snapshot, compaction many small files: S3 round
    // trips, not CPU.
    this.io =
        Executors.newFixedThreadPool(
            IO_THREADS,
            r -> {
              Thread t = new Thread(r, "archive-maintain-io");
              t.setDaemon(true);
              return t;
            });
  }

  /** Opens the catalog. */
  public static ArchiveMaintainer open(ArchiveSettings settings) {
    return open(settings, Clock.systemUTC());
  }

  /** Opens the catalog; ages are counted from {@code clock}'s now. */
  static ArchiveMaintainer open(ArchiveSettings settings, Clock clock) {
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(clock, "clock");
    return new ArchiveMaintainer(ArchiveReader.openCatalog(settings), clock);
  }

  /**
   * Runs the policy's steps on one table.
   *
   * @param table {@code namespace.name}
   * @param progress receives one line per step (and a line every 10 s of a long compaction)
   * @throws MaintenanceFailure naming the table and the step that failed; what earlier steps
   *     committed stays
   */
  public TableMaintenance maintain(
      String table, MaintenancePolicy policy, Consumer<String> progress) throws MaintenanceFailure {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(progress, "progress");
    Table t;
    try {
      t = catalog.loadTable(TableIdentifier.parse(table));
    } catch (NoSuchTableException e) {
      throw new MaintenanceFailure(
          table,
          "load",
          "no such table in the catalog (PrepareCatalog or the sink creates it; is this the"
              + " catalog the sink writes to?)",
          e);
    } catch (RuntimeException e) {
      throw MaintenanceFailure.of(table, "load", e);
    }
    Tally tally = new Tally();
    Consumer<String> lines = line -> progress.accept(table + ": " + line);
    if (!policy.dryRun()) {
      try {
        updateProperties(t, lines);
      } catch (RuntimeException e) {
        throw MaintenanceFailure.of(table, "properties", e);
      }
    }
    for (Step step : Step.values()) {
      if (!policy.runs(step)) {
        continue;
      }
      try {
        t.refresh();
        switch (step) {
          case EXPIRE -> expire(t, policy, tally, lines);
          case COMPACT -> compact(t, policy, tally, lines);
          case MANIFESTS -> manifests(t, policy, tally, lines);
          case ORPHANS -> orphans(t, policy, tally, lines);
        }
      } catch (IOException | RuntimeException e) {
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        throw MaintenanceFailure.of(table, step.id(), cause);
      }
    }
    return tally.result(table, policy.dryRun());
  }

  /** What the steps found and did, filled in as they run. */
  private static final class Tally {
    int snapshotsExpired;
    int expiredFilesDeleted;
    int partitionsCompacted;
    int filesCompacted;
    int filesWritten;
    long rowsRewritten;
    int filesWithDeletes;
    int manifestsBefore;
    int manifestsAfter;
    int orphansRemoved;
    long orphanBytes;

    TableMaintenance result(String table, boolean dryRun) {
      return new TableMaintenance(
          table,
          snapshotsExpired,
          expiredFilesDeleted,
          partitionsCompacted,
          filesCompacted,
          filesWritten,
          rowsRewritten,
          filesWithDeletes,
          manifestsBefore,
          manifestsAfter,
          orphansRemoved,
          orphanBytes,
          dryRun);
    }
  }

  // ---- expire

  private void expire(Table table, MaintenancePolicy policy, Tally tally, Consumer<String> progress)
      throws IOException {
    long cutoff = clock.millis() - policy.snapshotRetention().toMillis();
    Queue<String> unused = new ConcurrentLinkedQueue<>();
    ExpireSnapshots expire =
        table
            .expireSnapshots()
            .expireOlderThan(cutoff)
            .retainLast(policy.retainLast())
            .cleanupLevel(ExpireSnapshots.CleanupLevel.ALL)
            .deleteWith(unused::add)
            .planWith(io);
    List<Snapshot> expiring = expire.apply();
    int snapshots = TableSnapshots.count(table);
    String older =
        "older than "
            + Instant.ofEpochMilli(cutoff)
            + " (keeping the newest "
            + policy.retainLast()
            + ")";
    if (expiring.isEmpty()) {
      progress.accept("expire: none of " + snapshots + " snapshots is " + older);
      return;
    }
    tally.snapshotsExpired = expiring.size();
    if (policy.dryRun()) {
      progress.accept("expire: " + expiring.size() + " of " + snapshots + " snapshots " + older);
      return;
    }
    progress.accept(
        "expire: expiring " + expiring.size() + " of " + snapshots + " snapshots " + older + " …");
    expire.commit();
    // Iceberg hands over the files only the expired snapshots used once the expiry is committed;
    // deleted here in bulk (S3 multi-object deletes) rather than one request per file.
    tally.expiredFilesDeleted = delete(table.io(), List.copyOf(unused), progress);
    progress.accept(
        "expire: "
            + tally.snapshotsExpired
            + " snapshots expired, "
            + tally.expiredFilesDeleted
            + " files only they used deleted");
  }

  // ---- compact

  /** The small files of one partition. */
  private static final class Group {
    final PartitionSpec spec;
    final StructLike partition;
    final String path;
    final List<DataFile> files = new ArrayList<>();

    Group(PartitionSpec spec, StructLike partition, String path) {
      this.spec = spec;
      this.partition = partition;
      this.path = path;
    }

    long bytes() {
      return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    }

    long rows() {
      return files.stream().mapToLong(DataFile::recordCount).sum();
    }
  }

  private void compact(
      Table table, MaintenancePolicy policy, Tally tally, Consumer<String> progress)
      throws IOException {
    Snapshot start = table.currentSnapshot();
    if (start == null) {
      progress.accept("compact: no snapshot yet, nothing to compact");
      return;
    }
    Map<String, Group> byPartition = new TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(start.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        DataFile file = task.file();
        if (!task.deletes().isEmpty()) {
          tally.filesWithDeletes++;
          continue;
        }
        if (file.fileSizeInBytes() >= policy.smallFileBytes()) {
          continue;
        }
        PartitionSpec spec = table.specs().get(file.specId());
        String path = spec.partitionToPath(file.partition());
        byPartition
            .computeIfAbsent(
                file.specId() + "/" + path,
                k -> new Group(spec, file.partition(), path.isEmpty() ? "(unpartitioned)" : path))
            .files
            .add(file);
      }
    }
    List<Group> groups =
        byPartition.values().stream()
            .filter(g -> g.files.size() >= policy.minInputFiles())
            .toList();
    int smallFiles = groups.stream().mapToInt(g -> g.files.size()).sum();
    SortOrder order = sortOrder(table.schema(), TableIdentifier.parse(table.name()).name());
    String sortedBy = describe(table.schema(), order);
    if (groups.isEmpty()) {
      progress.accept(
          "compact: no partition has "
              + policy.minInputFiles()
              + " or more files smaller than "
              + policy.smallFileBytes()
              + " bytes"
              + leftForErase(tally));
      return;
    }
    tally.partitionsCompacted = groups.size();
    tally.filesCompacted = smallFiles;
    if (policy.dryRun()) {
      progress.accept(
          "compact: "
              + smallFiles
              + " small files in "
              + groups.size()
              + " partitions would be rewritten sorted by "
              + sortedBy
              + leftForErase(tally));
      return;
    }
    progress.accept(
        "compact: "
            + smallFiles
            + " small files in "
            + groups.size()
            + " partitions, sorted by "
            + sortedBy
            + " …");

    OutputFileFactory outputs =
        OutputFileFactory.builderFor(table, 0, clock.millis())
            .format(FileFormat.PARQUET)
            .operationId("maintain-" + UUID.randomUUID())
            .build();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    Comparator<StructLike> comparator =
        order.isUnsorted() ? null : SortOrderComparators.forSchema(table.schema(), order);
    List<DataFile> removed = new ArrayList<>();
    List<DataFile> added = new ArrayList<>();
    long batchBytes = 0;
    int done = 0;
    int commits = 0;
    long lastProgress = System.nanoTime();
    for (Group group : groups) {
      List<DataFile> written = rewrite(table, group, order, comparator, outputs, writers, policy);
      removed.addAll(group.files);
      added.addAll(written);
      batchBytes += group.bytes();
      tally.filesWritten += written.size();
      tally.rowsRewritten += group.rows();
      done++;
      if (batchBytes >= COMMIT_INPUT_BYTES) {
        commitRewrite(table, start, removed, added);
        commits++;
        removed.clear();
        added.clear();
        batchBytes = 0;
      }
      if (System.nanoTime() - lastProgress > PROGRESS_EVERY_NANOS) {
        lastProgress = System.nanoTime();
        progress.accept(
            "compact: "
                + done
                + "/"
                + groups.size()
                + " partitions rewritten ("
                + group.path
                + "), "
                + commits
                + " commits");
      }
    }
    if (!removed.isEmpty()) {
      commitRewrite(table, start, removed, added);
      commits++;
    }
    progress.accept(
        "compact: "
            + smallFiles
            + " small files in "
            + groups.size()
            + " partitions rewritten into "
            + tally.filesWritten
            + " files sorted by "
            + sortedBy
            + " ("
            + tally.rowsRewritten
            + " rows, "
            + commits
            + (commits == 1 ? " commit)" : " commits)")
            + leftForErase(tally));
  }

  private static String leftForErase(Tally tally) {
    return tally.filesWithDeletes == 0
        ? ""
        : "; "
            + tally.filesWithDeletes
            + " files with row-level deletes left alone (an erase that stopped before its"
            + " rewrite: run erase again to finish it)";
  }

  /**
   * Writes a partition's rows sorted, rolling files at the target size, and checks that exactly the
   * rows read were written.
   */
  private List<DataFile> rewrite(
      Table table,
      Group group,
      SortOrder order,
      Comparator<StructLike> comparator,
      OutputFileFactory outputs,
      GenericFileWriterFactory writers,
      MaintenancePolicy policy)
      throws IOException {
    RollingDataWriter<Record> writer =
        new RollingDataWriter<>(
            writers, outputs, table.io(), policy.targetFileBytes(), group.spec, group.partition);
    try (writer) {
      if (comparator == null) {
        read(table, group.files, row -> true).forEach(writer::write);
      } else {
        String key = table.schema().findColumnName(order.fields().get(0).sourceId());
        for (KeyRange range : ranges(table, group, key, policy.sortBufferBytes())) {
          List<Record> rows = read(table, group.files, row -> range.contains(row.getField(key)));
          rows.sort(comparator);
          rows.forEach(writer::write);
        }
      }
    }
    List<DataFile> written = writer.result().dataFiles();
    long rowsWritten = written.stream().mapToLong(DataFile::recordCount).sum();
    if (rowsWritten != group.rows()) {
      delete(table.io(), written.stream().map(DataFile::location).toList(), line -> {});
      throw new IOException(
          group.path
              + ": read "
              + group.rows()
              + " rows from its "
              + group.files.size()
              + " small files but wrote "
              + rowsWritten
              + "; nothing of this partition was committed");
    }
    return written;
  }

  /**
   * The rows of {@code files} that {@code keep} accepts, file after file, the files read a few at a
   * time: a small file costs its round trips more than its bytes.
   */
  private List<Record> read(Table table, List<DataFile> files, Predicate<Record> keep)
      throws IOException {
    List<Future<List<Record>>> parts = new ArrayList<>();
    for (DataFile file : files) {
      parts.add(
          io.submit(
              () -> {
                List<Record> rows = new ArrayList<>();
                DataFileRows.forEach(
                    table,
                    file,
                    (pos, row) -> {
                      if (keep.test(row)) {
                        rows.add(row);
                      }
                    });
                return rows;
              }));
    }
    List<Record> rows = new ArrayList<>();
    try {
      for (Future<List<Record>> part : parts) {
        rows.addAll(part.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading " + files.size() + " files");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException failure) {
        throw failure;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IOException(cause);
    } finally {
      parts.forEach(part -> part.cancel(true));
    }
    return rows;
  }

  /**
   * One pass of a partition's sort: the rows whose first sort column is in {@code [low, high]} (and
   * the rows where it is null, when {@code nulls}); ranges follow each other in sort order.
   */
  private record KeyRange(boolean nulls, Object low, Object high, Comparator<Object> order) {
    static final KeyRange ALL = new KeyRange(true, null, null, null);

    boolean contains(Object value) {
      if (order == null) {
        return true;
      }
      if (value == null) {
        return nulls;
      }
      return low != null && order.compare(value, low) >= 0 && order.compare(value, high) <= 0;
    }
  }

  /**
   * The key ranges to sort a partition in: one when its small files fit the sort buffer; else a
   * first pass reads only the first sort column, weighs each value by the Parquet bytes of its rows
   * (each file's size spread over its rows), and cuts the values, in sort order, into ranges that
   * fit. The rows of one value are never split, so one value with more rows than the buffer makes a
   * range of its own.
   */
  private static List<KeyRange> ranges(Table table, Group group, String key, long budget)
      throws IOException {
    if (group.bytes() <= budget) {
      return List.of(KeyRange.ALL);
    }
    Type.PrimitiveType type = table.schema().findType(key).asPrimitiveType();
    Comparator<Object> order = Comparators.forType(type);
    TreeMap<Object, double[]> weights = new TreeMap<>(order);
    double[] nullWeight = {0};
    Schema keyOnly = table.schema().select(key);
    for (DataFile file : group.files) {
      double perRow = (double) file.fileSizeInBytes() / Math.max(1, file.recordCount());
      DataFileRows.forEach(
          table,
          file,
          keyOnly,
          (pos, row) -> {
            Object value = row.getField(key);
            if (value == null) {
              nullWeight[0] += perRow;
            } else {
              weights.computeIfAbsent(value, v -> new double[1])[0] += perRow;
            }
          });
    }
    List<KeyRange> ranges = new ArrayList<>();
    boolean nulls = nullWeight[0] > 0;
    double size = nullWeight[0];
    Object low = null;
    Object high = null;
    for (Map.Entry<Object, double[]> e : weights.entrySet()) {
      if ((low != null || nulls) && size + e.getValue()[0] > budget) {
        ranges.add(new KeyRange(nulls, low, high, order));
        nulls = false;
        low = null;
        size = 0;
      }
      if (low == null) {
        low = e.getKey();
      }
      high = e.getKey();
      size += e.getValue()[0];
    }
    if (low != null || nulls) {
      ranges.add(new KeyRange(nulls, low, high, order));
    }
    return ranges;
  }

  private static void commitRewrite(
      Table table, Snapshot start, List<DataFile> removed, List<DataFile> added) {
    RewriteFiles rewrite =
        table
            .newRewrite()
            .validateFromSnapshot(start.snapshotId())
            // New files carry the data sequence number of the snapshot their rows were read at, so
            // that deletes committed meanwhile still apply to them.
            .dataSequenceNumber(start.sequenceNumber());
    removed.forEach(rewrite::deleteFile);
    added.forEach(rewrite::addFile);
    rewrite.set(SUMMARY_PROPERTY, Step.COMPACT.id());
    try {
      rewrite.commit();
    } catch (ValidationException | CommitFailedException e) {
      // Refused (not "state unknown"): the new files are referenced by nothing.
      try {
        delete(table.io(), added.stream().map(DataFile::location).toList(), line -> {});
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /**
   * The order compaction sorts a table's rows in: by session first, then the session's own order,
   * for the tables prefixlog's readers read one session of; KV event batches (no session column) by
   * engine and sequence. Columns a table lacks are left out; an unknown table without {@code
   * session_key} is not sorted, only packed.
   */
  static SortOrder sortOrder(Schema schema, String tableName) {
    List<String> columns =
        switch (tableName) {
          case "session_deltas" -> List.of("session_key", "chain", "seq");
          case "chunk_lookups" -> List.of("session_key", "timestamp");
          case "requests_metadata" -> List.of("session_key", "ts");
          case "kv_events" -> List.of("source", "seq");
          default -> List.of("session_key");
        };
    SortOrder.Builder order = SortOrder.builderFor(schema);
    for (String column : columns) {
      if (schema.findField(column) != null && schema.findType(column).isPrimitiveType()) {
        order.asc(column, NullOrder.NULLS_FIRST);
      }
    }
    return order.build();
  }

  private static String describe(Schema schema, SortOrder order) {
    if (order.isUnsorted()) {
      return "nothing (no session column)";
    }
    return String.join(
        ", ", order.fields().stream().map(f -> schema.findColumnName(f.sourceId())).toList());
  }

  // ---- manifests

  private void manifests(
      Table table, MaintenancePolicy policy, Tally tally, Consumer<String> progress) {
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      progress.accept("manifests: no snapshot yet");
      return;
    }
    long target =
        PropertyUtil.propertyAsLong(
            table.properties(),
            TableProperties.MANIFEST_TARGET_SIZE_BYTES,
            TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
    List<ManifestFile> data = current.dataManifests(table.io());
    long small = data.stream().filter(m -> m.length() < target).count();
    tally.manifestsBefore = data.size();
    tally.manifestsAfter = data.size();
    if (small < 2) {
      progress.accept("manifests: " + data.size() + ", nothing to merge");
      return;
    }
    if (policy.dryRun()) {
      tally.manifestsAfter = (int) (data.size() - small + 1);
      progress.accept(
          "manifests: " + small + " of " + data.size() + " smaller than " + target + " bytes");
      return;
    }
    RewriteManifests rewrite =
        table
            .rewriteManifests()
            .rewriteIf(m -> m.content() == ManifestContent.DATA && m.length() < target)
            // One cluster: the entries of the small manifests go into as few as hold them.
            .clusterBy(file -> Boolean.TRUE);
    rewrite.set(SUMMARY_PROPERTY, Step.MANIFESTS.id());
    rewrite.commit();
    table.refresh();
    tally.manifestsAfter = table.currentSnapshot().dataManifests(table.io()).size();
    progress.accept("manifests: " + tally.manifestsBefore + " -> " + tally.manifestsAfter);
  }

  // ---- orphans

  private void orphans(
      Table table, MaintenancePolicy policy, Tally tally, Consumer<String> progress)
      throws IOException {
    if (!(table.io() instanceof SupportsPrefixOperations lister)) {
      progress.accept(
          "orphans: skipped, the table's FileIO ("
              + table.io().getClass().getSimpleName()
              + ") cannot list files");
      return;
    }
    String currentMetadata =
        ((HasTableOperations) table).operations().current().metadataFileLocation();
    Set<String> reachable = reachable(table);
    long now = clock.millis();
    long minAge = policy.orphanMinAge().toMillis();
    long cutoff = now - minAge;
    // Data files: counted from the sink's last commit too, and kept when it is not known.
    long lastAppend = lastAppend(table);
    long dataCutoff =
        lastAppend == Long.MIN_VALUE ? Long.MIN_VALUE : Math.min(now, lastAppend) - minAge;
    String dataPrefix =
        table.location().endsWith("/") ? table.location() + "data/" : table.location() + "/data/";
    // The trailing slash: without it, the listing of .../session_deltas would take in the files of
    // a table named session_deltas_old.
    String prefix = table.location().endsWith("/") ? table.location() : table.location() + "/";
    int listed = 0;
    boolean sawCurrent = false;
    int young = 0;
    List<FileInfo> orphans = new ArrayList<>();
    for (FileInfo file : lister.listPrefix(prefix)) {
      listed++;
      String location = normalize(file.location());
      if (location.equals(normalize(currentMetadata))) {
        sawCurrent = true;
      }
      if (!reachable.contains(location)) {
        boolean data = location.startsWith(normalize(dataPrefix));
        if (file.createdAtMillis() < (data ? dataCutoff : cutoff)) {
          orphans.add(file);
        } else {
          young++;
        }
      }
    }
    if (!sawCurrent) {
      // Then the listing names files differently from the table's metadata (another scheme or
      // endpoint), and every file would look unreferenced.
      throw new IOException(
          "listing "
              + prefix
              + " gave "
              + listed
              + " files, but not the table's current metadata file "
              + currentMetadata
              + ": the listed names do not match the table's, so nothing can be judged"
              + " unreferenced; nothing was removed");
    }
    tally.orphansRemoved = orphans.size();
    tally.orphanBytes = orphans.stream().mapToLong(FileInfo::size).sum();
    String judged =
        " of "
            + listed
            + " files under "
            + prefix
            + " referenced by nothing and old enough (metadata before "
            + Instant.ofEpochMilli(cutoff)
            + ", data before "
            + (dataCutoff == Long.MIN_VALUE
                ? "nothing: the sink's last commit is not known"
                : Instant.ofEpochMilli(dataCutoff)
                    + ", "
                    + policy.orphanMinAge().toHours()
                    + " h before the sink's last commit")
            + ")"
            + (young == 0 ? "" : " (" + young + " younger ones kept)");
    if (orphans.isEmpty() || policy.dryRun()) {
      progress.accept(
          "orphans: " + orphans.size() + judged + (policy.dryRun() ? ", would be removed" : ""));
      return;
    }
    int deleted = delete(table.io(), orphans.stream().map(FileInfo::location).toList(), progress);
    tally.orphansRemoved = deleted;
    progress.accept("orphans: " + deleted + judged + ", removed (" + tally.orphanBytes + " bytes)");
  }

  /**
   * The time of the table's newest append (a sink commit): of its snapshots, or the one an earlier
   * run recorded, whichever is later; {@link Long#MIN_VALUE} when neither says.
   */
  static long lastAppend(Table table) {
    long last =
        PropertyUtil.propertyAsLong(table.properties(), LAST_APPEND_PROPERTY, Long.MIN_VALUE);
    for (Snapshot s : table.snapshots()) {
      if (DataOperations.APPEND.equals(s.operation())) {
        last = Math.max(last, s.timestampMillis());
      }
    }
    return last;
  }

  /**
   * One metadata-only commit, when something changes: records {@link #lastAppend} before expiry can
   * remove the append snapshots it comes from, and has every committer delete the table metadata
   * files beyond the newest {@value TableProperties#METADATA_PREVIOUS_VERSIONS_MAX_DEFAULT}
   * (Iceberg keeps them all by default: a metadata file per sink commit, each listing every
   * snapshot kept, which the orphan step would only remove after its minimum age). A value an
   * operator set is left as it is.
   */
  private static void updateProperties(Table table, Consumer<String> progress) {
    long last = lastAppend(table);
    long recorded =
        PropertyUtil.propertyAsLong(table.properties(), LAST_APPEND_PROPERTY, Long.MIN_VALUE);
    boolean cleanup =
        !table.properties().containsKey(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED);
    if (last <= recorded && !cleanup) {
      return;
    }
    UpdateProperties update = table.updateProperties();
    if (last > recorded) {
      update.set(LAST_APPEND_PROPERTY, Long.toString(last));
    }
    if (cleanup) {
      update.set(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true");
      progress.accept(
          "properties: "
              + TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED
              + "=true (each commit deletes the metadata files beyond the newest "
              + PropertyUtil.propertyAsInt(
                  table.properties(),
                  TableProperties.METADATA_PREVIOUS_VERSIONS_MAX,
                  TableProperties.METADATA_PREVIOUS_VERSIONS_MAX_DEFAULT)
              + ")");
    }
    update.commit();
  }

  /**
   * Every file the table's metadata references: the current metadata file and those in its log,
   * statistics files, each retained snapshot's manifest list, their manifests and the data and
   * delete files those list.
   */
  private static Set<String> reachable(Table table) throws IOException {
    FileIO io = table.io();
    Set<String> files = new HashSet<>();
    ReachableFileUtil.metadataFileLocations(table, false).forEach(f -> files.add(normalize(f)));
    ReachableFileUtil.statisticsFilesLocations(table).forEach(f -> files.add(normalize(f)));
    table.partitionStatisticsFiles().forEach(f -> files.add(normalize(f.path())));
    Map<String, ManifestFile> manifests = new TreeMap<>();
    for (Snapshot snapshot : table.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        files.add(normalize(snapshot.manifestListLocation()));
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        manifests.putIfAbsent(manifest.path(), manifest);
      }
    }
    for (ManifestFile manifest : manifests.values()) {
      files.add(normalize(manifest.path()));
      if (manifest.content() == ManifestContent.DATA) {
        try (CloseableIterable<String> paths =
            ManifestFiles.readPaths(manifest, io, table.specs())) {
          paths.forEach(p -> files.add(normalize(p)));
        }
      } else {
        try (ManifestReader<DeleteFile> deletes =
            ManifestFiles.readDeleteManifest(manifest, io, table.specs())) {
          deletes.forEach(d -> files.add(normalize(d.location())));
        }
      }
    }
    return files;
  }

  /** One name per object: Hadoop's s3a:// and s3n:// are the same objects as s3://. */
  private static String normalize(String location) {
    if (location.startsWith("s3a://") || location.startsWith("s3n://")) {
      return "s3://" + location.substring(6);
    }
    return location;
  }

  // ---- shared

  /**
   * Deletes files, in bulk where the FileIO can.
   *
   * @return how many were deleted; those that could not be are reported and left for a later run's
   *     orphan step
   */
  private static int delete(FileIO io, List<String> locations, Consumer<String> progress) {
    if (locations.isEmpty()) {
      return 0;
    }
    if (io instanceof SupportsBulkOperations bulk) {
      try {
        bulk.deleteFiles(locations);
        return locations.size();
      } catch (BulkDeletionFailureException e) {
        progress.accept(
            e.numberFailedObjects()
                + " of "
                + locations.size()
                + " files could not be deleted (left for a later run's orphan step)");
        return locations.size() - e.numberFailedObjects();
      }
    }
    locations.forEach(io::deleteFile);
    return locations.size();
  }

  @Override
  public void close() throws IOException {
    io.shutdownNow();
    catalog.close();
  }
}
