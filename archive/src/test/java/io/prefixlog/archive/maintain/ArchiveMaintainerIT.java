package io.prefixlog.archive.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.archive.ArchiveCatalog;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.archive.embedded.S3ProxyServer;
import io.prefixlog.archive.erase.ArchiveEraser;
import io.prefixlog.archive.erase.ErasureSelection;
import io.prefixlog.archive.erase.TableErasure;
import io.prefixlog.archive.read.ArchiveReader;
import io.prefixlog.archive.read.DataFileRows;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestWriter;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.inmemory.InMemoryInputFile;
import org.apache.iceberg.inmemory.InMemoryOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.MoreExecutors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Archive maintenance against real parts: s3proxy for the bucket and a SQLite JDBC catalog. A year
 * of the sink's commits is simulated through Iceberg's API (one small Parquet file per commit, as
 * the sink appends them), then maintained: a session's read and its erasure must touch a bounded
 * number of files, no row may change, and the bucket must end with the live files only. A second
 * test pins orphan removal's safety rules, a third the sort of a partition larger than the sort
 * buffer.
 */
@Timeout(3600)
class ArchiveMaintainerIT {
  private static final String BUCKET = "maintain-it";
  private static final OffsetDateTime YEAR_START =
      OffsetDateTime.of(2025, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  /** Days simulated; {@code -Dprefixlog.maintain.days=30} for a quick run. */
  private static final int DAYS = Integer.getInteger("prefixlog.maintain.days", 365);

  /** The sink's commits per day (one every 24 minutes): 21,900 in a year. */
  private static final int COMMITS_PER_DAY = 60;

  private static final int ROWS_PER_COMMIT = 4;
  private static final ExecutorService INLINE = MoreExecutors.newDirectExecutorService();
  private static final int SESSIONS_STARTING_PER_DAY = 8;
  private static final int SESSION_DAYS = 3;

  /** Sessions whose reads are measured before and after maintenance. */
  private static final int SAMPLE = 16;

  @TempDir static Path dir;
  private static S3ProxyServer s3;

  @BeforeAll
  static void startS3() {
    s3 =
        S3ProxyServer.start(
            S3ProxyServer.Options.defaults(
                dir.resolve("s3"),
                Path.of("target/s3proxy/s3proxy.jar"),
                BUCKET,
                "prefixlog",
                "prefixlog-dev-secret"));
  }

  @AfterAll
  static void stop() {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void shouldBoundTheFilesASessionsReadAndEraseTouchAfterAYearOfMinuteCommits() throws Exception {
    // Given: a year of small commits to the deltas table, sessions living three days each
    ArchiveSettings settings = settings("year");
    List<ArchivedTopic> topics = topics("year");
    ArchiveCatalog.prepare(settings, topics);
    String deltas = topics.get(0).table();
    Simulation year;
    try (JdbcCatalog catalog = catalog(settings, WriteBehindFileIO.class.getName())) {
      long t = System.nanoTime();
      year = simulate(catalog.loadTable(TableIdentifier.parse(deltas)));
      System.out.printf(
          "simulated %d commits (%d rows, %d sessions) in %.1f s%n",
          year.commits, year.rows, year.daysBySession.size(), (System.nanoTime() - t) / 1e9);
    }
    // A session's read opens the files whose session_key bounds include its key: how many
    // depends on where the key falls, so a sample spread over the year (and the key space).
    List<String> sample = new ArrayList<>();
    for (int i = 1; i <= SAMPLE; i++) {
      sample.add(year.sessionOf(i * DAYS / (SAMPLE + 1)));
    }
    String session = sample.get(SAMPLE / 2);
    int sessionDays = year.daysBySession.get(session).size();
    Map<String, Long> before;
    List<Integer> readBefore;
    long objectsBefore = objectsIn("year");
    try (ArchiveReader reader = ArchiveReader.open(settings)) {
      readBefore = filesToRead(reader, deltas, sample);
      before = rowsBySession(reader, deltas);
    }
    int holdingBefore = year.filesBySession.get(session);
    assertThat(rowCount(before)).isEqualTo(year.rows);

    // When: maintenance runs as it would a week after the year's last commit
    List<String> progress = new ArrayList<>();
    TableMaintenance first;
    long t = System.nanoTime();
    try (ArchiveMaintainer maintainer =
        ArchiveMaintainer.open(settings, Clock.offset(Clock.systemUTC(), Duration.ofDays(8)))) {
      first = maintainer.maintain(deltas, MaintenancePolicy.defaults(), progress::add);
    }
    double firstSeconds = (System.nanoTime() - t) / 1e9;

    // Then: every snapshot but the newest expired, each day's small files became one sorted file
    assertThat(first.snapshotsExpired()).isEqualTo(year.commits - 1);
    assertThat(first.partitionsCompacted()).isEqualTo(DAYS);
    assertThat(first.filesCompacted()).isEqualTo(year.commits);
    assertThat(first.filesWritten()).isEqualTo(DAYS);
    assertThat(first.rowsRewritten()).isEqualTo(year.rows);
    assertThat(first.orphansRemoved()).isZero();
    // and from now on each commit deletes the metadata files beyond the newest 100
    try (JdbcCatalog catalog = catalog(settings)) {
      assertThat(catalog.loadTable(TableIdentifier.parse(deltas)).properties())
          .containsEntry("write.metadata.delete-after-commit.enabled", "true");
    }
    assertThat(progress).anyMatch(l -> l.contains("write.metadata.delete-after-commit.enabled"));
    assertThat(progress).anyMatch(l -> l.contains("compact: ") && l.contains("sorted by"));
    // and no row changed, and each file's rows are in session order
    try (ArchiveReader reader = ArchiveReader.open(settings);
        JdbcCatalog catalog = catalog(settings)) {
      Map<String, Long> after = rowsBySession(reader, deltas);
      // The fault-injection suite's line (scenario 18): here the events are the sink's rows
      printScenario(year, before, after);
      assertThat(after).isEqualTo(before);
      assertSortedBySession(catalog.loadTable(TableIdentifier.parse(deltas)));
      // and a session's read opens at most one file per day (the day's file, whose session_key
      // bounds span the day's sessions) instead of a share of the year's commits
      List<Integer> readAfter = filesToRead(reader, deltas, sample);
      assertThat(readAfter).allMatch(files -> files <= DAYS);
      assertThat(mean(readBefore)).isGreaterThan(10 * mean(readAfter));
      System.out.printf(
          "maintenance: %.1f s (%d snapshots expired, %d files compacted into %d); a session's"
              + " read, %d sessions: %.0f files on average before (at most %d), %.0f after (at"
              + " most %d); session %s: %d files held its rows before, %d after; %d commits over"
              + " %d days%n",
          firstSeconds,
          first.snapshotsExpired(),
          first.filesCompacted(),
          first.filesWritten(),
          SAMPLE,
          mean(readBefore),
          readBefore.stream().mapToInt(Integer::intValue).max().orElseThrow(),
          mean(readAfter),
          readAfter.stream().mapToInt(Integer::intValue).max().orElseThrow(),
          session,
          holdingBefore,
          sessionDays,
          year.commits,
          DAYS);
    }

    // When: the next run, after the retention, expires the compaction's parent
    TableMaintenance second;
    try (ArchiveMaintainer maintainer =
        ArchiveMaintainer.open(settings, Clock.offset(Clock.systemUTC(), Duration.ofDays(10)))) {
      second = maintainer.maintain(deltas, MaintenancePolicy.defaults(), line -> {});
    }

    // Then: the small files left the bucket, and nothing was left to compact
    assertThat(second.snapshotsExpired()).isPositive();
    assertThat(second.expiredFilesDeleted()).isGreaterThanOrEqualTo(year.commits);
    assertThat(second.filesCompacted()).isZero();
    assertThat(dataFilesInBucket("year")).isEqualTo(DAYS);
    System.out.printf(
        "the next run: %d snapshots expired, %d files deleted; objects in the table's location:"
            + " %d before maintenance, %d after%n",
        second.snapshotsExpired(), second.expiredFilesDeleted(), objectsBefore, objectsIn("year"));

    // When: one session is erased
    List<TableErasure> erased;
    try (ArchiveEraser eraser = ArchiveEraser.open(settings)) {
      erased =
          eraser.erase(
              topics.subList(0, 1), new ErasureSelection(Set.of(session), Set.of(), null), l -> {});
    }

    // Then: the erasure rewrote only the files of the session's days
    assertThat(erased.get(0).rowsDeleted()).isEqualTo(before.get(session));
    assertThat(erased.get(0).dataFilesRewritten()).isEqualTo(sessionDays);
    assertThat(erased.get(0).dataFilesRewritten()).isLessThan(holdingBefore);
    try (ArchiveReader reader = ArchiveReader.open(settings)) {
      Map<String, Long> expected = new TreeMap<>(before);
      expected.remove(session);
      expected.remove(session + "#");
      assertThat(rowsBySession(reader, deltas)).isEqualTo(expected);
    }
    System.out.printf(
        "erase of one session: %d files rewritten after maintenance (%d held its rows before)%n",
        erased.get(0).dataFilesRewritten(), holdingBefore);
  }

  @Test
  void shouldRemoveOnlyOldUnreferencedFilesOfTheTable() throws Exception {
    // Given: a table with three commits, and under its location: a data file a failed commit left
    // four days ago, an old metadata file, a file being written now (not committed yet); and an
    // old file of a table whose name starts with this one's
    ArchiveSettings settings = settings("orphans");
    List<ArchivedTopic> topics = topics("orphans");
    ArchiveCatalog.prepare(settings, topics);
    String deltas = topics.get(0).table();
    String location;
    try (JdbcCatalog catalog = catalog(settings)) {
      Table table = catalog.loadTable(TableIdentifier.parse(deltas));
      for (int commit = 0; commit < 3; commit++) {
        append(table, List.of(delta(key("s" + commit), 1, 0, commit)));
      }
      location = table.location();
      write(table, location + "/data/kafka_ts_day=2025-01-01/00000-0-failed-00001.parquet");
      write(table, location + "/metadata/00001-leftover.metadata.json");
      write(table, location + "/data/kafka_ts_day=2025-01-01/00000-0-inflight-00001.parquet");
      write(table, location + "_old/data/00000-0-other-00001.parquet");
    }
    Instant fourDaysAgo = Instant.now().minus(Duration.ofDays(4));
    for (String name :
        List.of("00000-0-failed-00001.parquet", "00001-leftover.metadata.json", "other-00001")) {
      backdate(name, fourDaysAgo);
    }
    Map<String, Long> rows;
    try (ArchiveReader reader = ArchiveReader.open(settings)) {
      rows = rowsBySession(reader, deltas);
    }
    MaintenancePolicy orphansOnly =
        MaintenancePolicy.defaults().withSteps(Set.of(MaintenancePolicy.Step.ORPHANS));

    // When: a dry run
    TableMaintenance dry;
    try (ArchiveMaintainer maintainer = ArchiveMaintainer.open(settings)) {
      dry = maintainer.maintain(deltas, orphansOnly.withDryRun(true), line -> {});
    }

    // Then: it finds the two old ones and deletes nothing
    assertThat(dry.orphansRemoved()).isEqualTo(2);
    assertThat(objectsNamed("failed", "leftover", "inflight", "other")).hasSize(4);

    // When: maintenance removes orphans
    TableMaintenance run;
    List<String> progress = new ArrayList<>();
    try (ArchiveMaintainer maintainer = ArchiveMaintainer.open(settings)) {
      run = maintainer.maintain(deltas, orphansOnly, progress::add);
    }

    // Then: exactly the two old unreferenced files of this table went
    assertThat(run.orphansRemoved()).isEqualTo(2);
    assertThat(objectsNamed("failed", "leftover", "inflight", "other"))
        .containsExactlyInAnyOrder("00000-0-inflight-00001.parquet", "00000-0-other-00001.parquet");
    assertThat(progress).anyMatch(l -> l.contains("1 younger ones kept"));
    try (ArchiveReader reader = ArchiveReader.open(settings)) {
      assertThat(rowsBySession(reader, deltas)).isEqualTo(rows);
    }
  }

  @Test
  void shouldKeepTheDataFilesAStoppedSinkMayStillCommit() throws Exception {
    // Given: a table whose sink committed last just now, then stopped: a data file it wrote a day
    // before (not committed yet), one it wrote four days before, and a leftover metadata file of a
    // day ago
    ArchiveSettings settings = settings("stopped");
    List<ArchivedTopic> topics = topics("stopped");
    ArchiveCatalog.prepare(settings, topics);
    String deltas = topics.get(0).table();
    try (JdbcCatalog catalog = catalog(settings)) {
      Table table = catalog.loadTable(TableIdentifier.parse(deltas));
      append(table, List.of(delta(key("stopped"), 1, 0, 0)));
      write(
          table, table.location() + "/data/kafka_ts_day=2025-01-01/00000-0-pending-00001.parquet");
      write(table, table.location() + "/data/kafka_ts_day=2025-01-01/00000-0-stale-00001.parquet");
      write(table, table.location() + "/metadata/00002-dayold.metadata.json");
    }
    backdate("pending-00001", Instant.now().minus(Duration.ofDays(1)));
    backdate("stale-00001", Instant.now().minus(Duration.ofDays(4)));
    backdate("00002-dayold", Instant.now().minus(Duration.ofDays(1)));

    // When: maintenance runs five days later, the sink still stopped
    TableMaintenance run;
    try (ArchiveMaintainer maintainer =
        ArchiveMaintainer.open(settings, Clock.offset(Clock.systemUTC(), Duration.ofDays(5)))) {
      run =
          maintainer.maintain(
              deltas,
              MaintenancePolicy.defaults().withSteps(Set.of(MaintenancePolicy.Step.ORPHANS)),
              line -> {});
    }

    // Then: the data file written a day before the sink's last commit stays (it may still commit
    // it); the one written four days before it, and the old metadata file, go
    assertThat(run.orphansRemoved()).isEqualTo(2);
    assertThat(objectsNamed("pending", "stale", "dayold"))
        .containsExactly("00000-0-pending-00001.parquet");
  }

  @Test
  void shouldSortAPartitionLargerThanTheSortBufferInKeyRanges() throws Exception {
    // Given: one day of 24 small files, 3 MB of hardly compressible rows in all, from 40 sessions
    ArchiveSettings settings = settings("ranges");
    List<ArchivedTopic> topics = topics("ranges");
    ArchiveCatalog.prepare(settings, topics);
    String deltas = topics.get(0).table();
    Random random = new Random(7);
    Map<String, Long> seqs = new HashMap<>();
    try (JdbcCatalog catalog = catalog(settings)) {
      Table table = catalog.loadTable(TableIdentifier.parse(deltas));
      for (int commit = 0; commit < 24; commit++) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
          String session = key("ranges-" + random.nextInt(40));
          long seq = seqs.merge(session, 1L, Long::sum);
          Record row = delta(session, seq, 0, commit);
          byte[] noise = new byte[6_000];
          random.nextBytes(noise);
          row.setField("body", HexFormat.of().formatHex(noise));
          rows.add(row);
        }
        append(table, rows);
      }
    }
    Map<String, Long> before;
    try (ArchiveReader reader = ArchiveReader.open(settings)) {
      before = rowsBySession(reader, deltas);
    }

    // When: compacted with a 1 MiB sort buffer
    List<String> progress = new ArrayList<>();
    TableMaintenance run;
    try (ArchiveMaintainer maintainer = ArchiveMaintainer.open(settings)) {
      run =
          maintainer.maintain(
              deltas,
              MaintenancePolicy.defaults()
                  .withSteps(Set.of(MaintenancePolicy.Step.COMPACT))
                  .withSortBufferBytes(MaintenancePolicy.MIB),
              progress::add);
    }

    // Then: one file, every row in (session, chain, seq) order, none changed
    assertThat(run.filesCompacted()).isEqualTo(24);
    assertThat(run.filesWritten()).isEqualTo(1);
    try (ArchiveReader reader = ArchiveReader.open(settings);
        JdbcCatalog catalog = catalog(settings)) {
      assertThat(rowsBySession(reader, deltas)).isEqualTo(before);
      assertSortedBySession(catalog.loadTable(TableIdentifier.parse(deltas)));
    }
  }

  // ---- the simulated year

  /** What the simulation committed. */
  private static final class Simulation {
    int commits;
    long rows;
    final Map<String, Set<Integer>> daysBySession = new TreeMap<>();
    final Map<String, Integer> filesBySession = new HashMap<>();
    final Map<Integer, List<String>> startingOn = new HashMap<>();

    String sessionOf(int day) {
      return startingOn.get(day).get(0);
    }
  }

  /**
   * Commits {@value #COMMITS_PER_DAY} small files a day for {@link #DAYS} days, as the sink does:
   * one append per commit, each a file of the day's partition with rows of the sessions alive that
   * day. The files of a day are written in parallel; the appends go through one transaction a week,
   * which commits the same snapshots (one per append) as separate commits would, without rewriting
   * the table's metadata file, which lists every snapshot, once per commit.
   */
  private static Simulation simulate(Table table) throws Exception {
    Simulation sim = new Simulation();
    Random random = new Random(20_250_101);
    Map<String, Long> seqs = new HashMap<>();
    List<String> alive = new ArrayList<>();
    ExecutorService writers = Executors.newFixedThreadPool(4);
    long started = System.nanoTime();
    try {
      Transaction txn = table.newTransaction();
      for (int day = 0; day < DAYS; day++) {
        List<String> starting = new ArrayList<>();
        for (int i = 0; i < SESSIONS_STARTING_PER_DAY; i++) {
          starting.add(key("year-" + day + "-" + i));
        }
        sim.startingOn.put(day, starting);
        alive.addAll(starting);
        if (day >= SESSION_DAYS) {
          alive.removeAll(sim.startingOn.get(day - SESSION_DAYS));
        }
        List<Future<ManifestFile>> manifests = new ArrayList<>();
        for (int commit = 0; commit < COMMITS_PER_DAY; commit++) {
          List<Record> rows = new ArrayList<>();
          Set<String> inFile = new HashSet<>();
          for (int r = 0; r < ROWS_PER_COMMIT; r++) {
            String session = alive.get(random.nextInt(alive.size()));
            rows.add(delta(session, seqs.merge(session, 1L, Long::sum), day, commit));
            sim.daysBySession.computeIfAbsent(session, s -> new TreeSet<>()).add(day);
            inFile.add(session);
          }
          inFile.forEach(s -> sim.filesBySession.merge(s, 1, Integer::sum));
          sim.rows += rows.size();
          manifests.add(writers.submit(() -> manifestOf(table, writeFile(table, rows))));
        }
        for (Future<ManifestFile> written : manifests) {
          ManifestFile manifest = written.get();
          // In the committing thread: Iceberg's parallel steps poll their tasks every 10 ms.
          txn.newAppend().scanManifestsWith(INLINE).appendManifest(manifest).commit();
          sim.commits++;
        }
        if (day % 30 == 29) {
          System.out.printf(
              "simulated %d days, %d commits, %.1f s%n",
              day + 1, sim.commits, (System.nanoTime() - started) / 1e9);
        }
        if (day % 7 == 6 || day == DAYS - 1) {
          ((WriteBehindFileIO) table.io()).flush();
          txn.commitTransaction();
          table.refresh();
          txn = table.newTransaction();
        }
      }
    } finally {
      writers.shutdownNow();
    }
    return sim;
  }

  private static DataFile writeFile(Table table, List<Record> rows) throws IOException {
    OutputFileFactory files =
        OutputFileFactory.builderFor(table, 1, System.nanoTime())
            .format(FileFormat.PARQUET)
            .build();
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    PartitionKey partition = new PartitionKey(table.spec(), table.schema());
    partition.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(rows.get(0)));
    DataWriter<Record> writer =
        writers.newDataWriter(
            files.newOutputFile(table.spec(), partition), table.spec(), partition);
    try (writer) {
      rows.forEach(writer::write);
    }
    return writer.toDataFile();
  }

  /**
   * A manifest listing one new data file, as the sink's append writes it (its entries inherit the
   * snapshot id of the append that commits it).
   */
  private static ManifestFile manifestOf(Table table, DataFile file) throws IOException {
    OutputFile out =
        table.io().newOutputFile(table.location() + "/metadata/" + UUID.randomUUID() + "-m0.avro");
    ManifestWriter<DataFile> writer = ManifestFiles.write(2, table.spec(), out, null);
    try (writer) {
      writer.add(file);
    }
    return writer.toManifestFile();
  }

  private static void append(Table table, List<Record> rows) throws IOException {
    table.newAppend().appendFile(writeFile(table, rows)).commit();
  }

  private static Record delta(String session, long seq, int day, int commit) {
    Record row = GenericRecord.create(ArchiveCatalog.schemaOf("session_deltas"));
    OffsetDateTime at = YEAR_START.plusDays(day).plusMinutes(commit * 24L);
    row.setField("schema_version", 3L);
    row.setField("session_key", session);
    row.setField("chain", "c1");
    row.setField("seq", seq);
    row.setField("request_id", session.substring(0, 8) + "-" + seq);
    row.setField("ts", at.toInstant().toEpochMilli());
    row.setField("kind", seq == 1 ? "full" : "delta");
    row.setField("body", "{\"turn\":" + seq + ",\"of\":\"" + session + "\"}");
    row.setField("kafka_ts", at);
    return row;
  }

  /** A 32-hex-digit session key, as the bridge derives them (spread over the key space). */
  private static String key(String name) {
    try {
      byte[] hash =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(name.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 16);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- checks

  /** Rows per session, with a fingerprint of their seqs and bodies: any change shows. */
  private static Map<String, Long> rowsBySession(ArchiveReader reader, String table)
      throws IOException {
    Map<String, Long> rows = new TreeMap<>();
    reader.read(
        table,
        json -> {
          String text = new String(json, StandardCharsets.UTF_8);
          String session = text.replaceAll(".*\"session_key\":\"([0-9a-f]+)\".*", "$1");
          rows.merge(session, 1L, Long::sum);
          rows.merge(session + "#", (long) text.hashCode(), Long::sum);
        });
    return rows;
  }

  /**
   * The suite's line for this scenario: rows appended over the year, the sessions they hold, rows
   * read after maintenance, sessions whose rows changed (count or fingerprint, see {@link
   * #rowsBySession}) and rows read beyond those appended.
   */
  private static void printScenario(
      Simulation year, Map<String, Long> before, Map<String, Long> after) {
    Set<String> sessions = new TreeSet<>();
    for (String key : before.keySet()) {
      sessions.add(key.endsWith("#") ? key.substring(0, key.length() - 1) : key);
    }
    for (String key : after.keySet()) {
      sessions.add(key.endsWith("#") ? key.substring(0, key.length() - 1) : key);
    }
    long mismatches =
        sessions.stream()
            .filter(
                s ->
                    !Objects.equals(before.get(s), after.get(s))
                        || !Objects.equals(before.get(s + "#"), after.get(s + "#")))
            .count();
    System.err.printf(
        "fault scenario %-44s rows in %d, sessions %d, rows after %d, mismatched sessions %d,"
            + " duplicated rows %d%n",
        "18 a year of archive commits, then maintenance",
        year.rows,
        sessions.size(),
        rowCount(after),
        mismatches,
        Math.max(0, rowCount(after) - year.rows));
  }

  private static long rowCount(Map<String, Long> bySession) {
    return bySession.entrySet().stream()
        .filter(e -> !e.getKey().endsWith("#"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /** Every data file's rows are in (session_key, chain, seq) order. */
  private static void assertSortedBySession(Table table) throws IOException {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        List<String> keys = new ArrayList<>();
        DataFileRows.forEach(
            table,
            task.file(),
            (pos, row) ->
                keys.add(
                    row.getField("session_key")
                        + "/"
                        + row.getField("chain")
                        + "/"
                        + String.format("%09d", (Long) row.getField("seq"))));
        assertThat(keys).as(task.file().location()).isSorted();
      }
    }
  }

  private static List<Integer> filesToRead(
      ArchiveReader reader, String table, List<String> sessions) throws IOException {
    List<Integer> files = new ArrayList<>();
    for (String session : sessions) {
      files.add(reader.filesToRead(table, "session_key", session));
    }
    return files;
  }

  private static double mean(List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).average().orElseThrow();
  }

  private static long objectsIn(String namespace) throws IOException {
    try (Stream<Path> files = Files.walk(s3.bucketDir().resolve("warehouse-" + namespace))) {
      return files.filter(Files::isRegularFile).count();
    }
  }

  private static long dataFilesInBucket(String namespace) throws IOException {
    try (Stream<Path> files = Files.walk(s3.bucketDir().resolve("warehouse-" + namespace))) {
      return files
          .filter(Files::isRegularFile)
          .filter(f -> f.toString().contains("/data/") && f.toString().endsWith(".parquet"))
          .count();
    }
  }

  private static List<String> objectsNamed(String... parts) throws IOException {
    try (Stream<Path> files = Files.walk(s3.bucketDir())) {
      return files
          .filter(Files::isRegularFile)
          .map(f -> f.getFileName().toString())
          .filter(n -> Stream.of(parts).anyMatch(n::contains))
          .toList();
    }
  }

  private static void backdate(String nameContains, Instant to) throws IOException {
    try (Stream<Path> files = Files.walk(s3.bucketDir())) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (f.getFileName().toString().contains(nameContains)) {
          Files.setLastModifiedTime(f, FileTime.from(to));
        }
      }
    }
  }

  private static void write(Table table, String location) throws IOException {
    OutputFile out = table.io().newOutputFile(location);
    try (PositionOutputStream stream = out.create()) {
      stream.write("not referenced".getBytes(StandardCharsets.UTF_8));
    }
  }

  // ---- set-up

  private static ArchiveSettings settings(String namespace) {
    return new ArchiveSettings(
        s3.endpoint(),
        "us-east-1",
        "prefixlog",
        "prefixlog-dev-secret",
        true,
        "s3://" + BUCKET + "/warehouse-" + namespace,
        "jdbc:sqlite:" + dir.resolve(namespace + ".db"),
        "",
        "",
        Duration.ofSeconds(10));
  }

  /** The archived topics, with tables in a namespace of their own. */
  private static List<ArchivedTopic> topics(String namespace) {
    List<ArchivedTopic> topics = new ArrayList<>();
    for (ArchivedTopic t : ArchivedTopic.all(namespace + ".")) {
      topics.add(
          new ArchivedTopic(
              t.connector(),
              t.topic(),
              namespace + "." + t.table().substring(t.table().indexOf('.') + 1),
              t.controlTopic()));
    }
    return topics;
  }

  private static JdbcCatalog catalog(ArchiveSettings settings) {
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize(ArchiveSettings.CATALOG_NAME, ArchiveReader.catalogProperties(settings));
    return catalog;
  }

  private static JdbcCatalog catalog(ArchiveSettings settings, String fileIo) {
    Map<String, String> properties = new HashMap<>(ArchiveReader.catalogProperties(settings));
    properties.put("io-impl", fileIo);
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.initialize(ArchiveSettings.CATALOG_NAME, properties);
    return catalog;
  }

  /**
   * The simulation's FileIO: S3FileIO, except that files are uploaded in the background, read back
   * from memory until then (manifests and manifest lists until {@link #flush}); table metadata
   * files, which the catalog is pointed at, are written at once. A commit then costs the committer
   * what it computes and the uploads run side by side, instead of one PUT after the other; once
   * {@link #flush} returns, which the simulation waits for before each transaction commits its
   * metadata, the bucket holds exactly what separate commits would have written.
   */
  public static final class WriteBehindFileIO implements FileIO {
    private static final long serialVersionUID = 1L;

    private final S3FileIO s3 = new S3FileIO();
    private final Map<String, byte[]> written = new ConcurrentHashMap<>();
    private final List<Future<?>> uploads = Collections.synchronizedList(new ArrayList<>());
    private transient ExecutorService uploaders;

    @Override
    public void initialize(Map<String, String> properties) {
      s3.initialize(properties);
      uploaders =
          Executors.newFixedThreadPool(
              8,
              r -> {
                Thread t = new Thread(r, "write-behind");
                t.setDaemon(true);
                return t;
              });
    }

    @Override
    public InputFile newInputFile(String path) {
      byte[] bytes = written.get(path);
      return bytes == null ? s3.newInputFile(path) : new InMemoryInputFile(path, bytes);
    }

    @Override
    public OutputFile newOutputFile(String path) {
      if (path.endsWith(".metadata.json")) {
        // What a commit points the catalog at: in the bucket before the catalog names it.
        return s3.newOutputFile(path);
      }
      return new OutputFile() {
        @Override
        public PositionOutputStream create() {
          return createOrOverwrite();
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
          InMemoryOutputFile memory = new InMemoryOutputFile(path);
          PositionOutputStream out = memory.createOrOverwrite();
          return new PositionOutputStream() {
            @Override
            public long getPos() throws IOException {
              return out.getPos();
            }

            @Override
            public void write(int b) throws IOException {
              out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
              out.close();
              byte[] bytes = memory.toByteArray();
              written.put(path, bytes);
              uploads.add(
                  uploaders.submit(
                      () -> {
                        try (PositionOutputStream s3Out =
                            s3.newOutputFile(path).createOrOverwrite()) {
                          s3Out.write(bytes);
                        }
                        if (!path.contains("/metadata/")) {
                          written.remove(path);
                        }
                        return null;
                      }));
            }
          };
        }

        @Override
        public String location() {
          return path;
        }

        @Override
        public InputFile toInputFile() {
          return newInputFile(path);
        }
      };
    }

    @Override
    public void deleteFile(String path) {
      s3.deleteFile(path);
    }

    /** Waits until every file written so far is in the bucket. */
    void flush() throws Exception {
      List<Future<?>> pending;
      synchronized (uploads) {
        pending = new ArrayList<>(uploads);
        uploads.clear();
      }
      for (Future<?> upload : pending) {
        upload.get();
      }
      written.clear();
    }

    @Override
    public Map<String, String> properties() {
      return s3.properties();
    }

    @Override
    public void close() {
      try {
        flush();
      } catch (Exception e) {
        throw new IllegalStateException("an upload failed", e);
      } finally {
        uploaders.shutdownNow();
        s3.close();
      }
    }
  }
}
