package io.prefixlog.tools.analyze;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.chunk.ChunkLookupResolver;
import io.prefixlog.core.chunk.LookupChains;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.reconstruct.Spool;
import io.prefixlog.tools.topic.TopicScan;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * {@code prefixlog export --lmcache-lookups DIR}: the lookups topic (or a dump of it) written as
 * LMCache's lookup-hash log, one version 1 record per line, whatever version the topic holds. A
 * version 1 record is written as the topic holds it; a version 2 record is resolved to its whole
 * list ({@link ChunkLookupResolver}, in the order of its partition) and written as {@link
 * ChunkLookupRecord#asVersion1}, byte for byte what a version 1 writer wrote.
 *
 * <p>Compaction's rule applies as {@code analyze} applies it: the latest record of a key wins and a
 * tombstone removes it, so nothing of an erased session is written. Lines come out in timestamp
 * order (ties in the order read), as LMCache's log holds them. While the input is read, the lines
 * go to an owner-only spool file and memory holds where each one is, not the lines.
 */
public final class LookupExport {
  private static final JsonSerde<ChunkLookupRecord> SERDE = JsonSerde.of(ChunkLookupRecord.class);
  private static final DateTimeFormatter FILE_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);

  /** Where the lookups come from: the topic, or files. */
  public record Input(String bootstrap, String topic, List<String> files) {
    public Input {
      files = List.copyOf(files);
    }
  }

  /**
   * What to do.
   *
   * @param directory where the log file goes; created if need be, and must hold no {@code *.jsonl}
   * @param chainMemory the memory bound on the chains' lists (see {@link LookupChains})
   * @param allowUnresolved exit 0 even when some records could not be resolved
   */
  public record Settings(
      Input input, Path directory, long chainMemory, boolean allowUnresolved, boolean progress) {
    public Settings {
      Objects.requireNonNull(input, "input");
      Objects.requireNonNull(directory, "directory");
    }
  }

  private final Terminal terminal;
  private final Settings settings;
  private final ChunkLookupResolver resolver;
  private final Spool spool;
  private final Map<String, Integer> byKey = new HashMap<>();
  private final List<String> problems = new ArrayList<>();
  private double[] timestamps = new double[1024];
  private long[] offsets = new long[1024];
  private int[] lengths = new int[1024];
  private int entries;
  private long records;
  private long v2Records;
  private long tombstones;
  private long replaced;
  private long blank;
  private long problemCount;

  private LookupExport(Terminal terminal, Settings settings, Spool spool) {
    this.terminal = terminal;
    this.settings = settings;
    this.resolver = new ChunkLookupResolver(settings.chainMemory());
    this.spool = spool;
  }

  /** {@code --chain-memory SIZE}, read as {@code analyze} reads it. */
  public static long chainMemory(CommandLine line) throws UsageException {
    return AnalyzeCommand.Settings.chainMemory(line);
  }

  /** Runs the export; returns the exit code and prints the summary on the terminal. */
  public static int run(Terminal terminal, Settings settings) {
    try {
      refuseLogsAlreadyThere(settings.directory());
    } catch (IOException e) {
      return failed(terminal, e.getMessage());
    }
    try (Spool spool = Spool.create()) {
      return new LookupExport(terminal, settings, spool).export();
    } catch (IOException | UncheckedIOException e) {
      return failed(terminal, "cannot export: " + e);
    }
  }

  private int export() throws IOException {
    String read;
    try {
      read = read();
    } catch (NoSuchFileException e) {
      return failed(
          terminal,
          "--file "
              + e.getFile()
              + ": "
              + (e.getReason() == null ? "no such file" : e.getReason()));
    } catch (TopicScan.ScanException e) {
      return failed(terminal, e.getMessage());
    }
    spool.finishWriting();
    PrintStream out = terminal.out();
    StringBuilder s = new StringBuilder(read);
    if (tombstones > 0 || replaced > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "  %s, %s replaced by a later record of the same key%n",
              Units.count(tombstones, "tombstone"),
              Units.count(replaced)));
    }
    LookupChains.Stats stats = resolver.stats();
    Resolution.describe(s, v2Records, stats, "--chain-memory");
    if (blank > 0) {
      s.append("  ").append(Units.count(blank, "blank line")).append(" skipped\n");
    }
    if (problemCount > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "  %s (first %d):%n",
              Units.count(problemCount, "bad line"),
              problems.size()));
      for (String problem : problems) {
        s.append("    ").append(problem).append('\n');
      }
    }
    Integer[] order = kept();
    if (order.length == 0) {
      out.print(s);
      out.println("FAILED: no lookup to export");
      out.flush();
      return Command.FAILED;
    }
    Path target =
        settings
            .directory()
            .resolve(
                "lookup_hashes_"
                    + FILE_TIME.format(Instant.ofEpochMilli((long) (timestamps[order[0]] * 1000)))
                    + "_000000.jsonl");
    write(order, target);
    s.append(
        String.format(
            Locale.ROOT,
            "  wrote %s to %s: LMCache's lookup-hash log, version 1 records in timestamp order%n",
            Units.count(order.length, "lookup"),
            target));
    out.print(s);
    long unresolved = stats.unresolvedTotal();
    if (problemCount > 0) {
      out.println(
          "FAILED: "
              + Units.count(problemCount, "line")
              + " could not be read; their lookups are not in the file");
      out.flush();
      return Command.FAILED;
    }
    if (unresolved > 0 && !settings.allowUnresolved()) {
      out.println(
          "FAILED: "
              + Units.count(unresolved, "record")
              + " could not be resolved and are not in the file (--allow-unresolved accepts"
              + " that)");
      out.flush();
      return Command.FAILED;
    }
    out.flush();
    return Command.OK;
  }

  private String read() throws IOException, TopicScan.ScanException {
    Input input = settings.input();
    if (!input.files().isEmpty()) {
      List<Path> files = LookupFiles.expand(input.files());
      try (Progress progress = Progress.bytes(terminal, settings.progress(), "read", 0)) {
        LookupFiles.read(files, this::line, progress);
      }
      String names =
          files.size() == 1 ? files.get(0).toString() : Units.count(files.size(), "file");
      return String.format(
          Locale.ROOT, "export: %s: %s%n", names, Units.count(records, "lookup record"));
    }
    int partitions;
    long[] counts = {0, 0}; // records, bytes of values
    try (Progress progress =
        Progress.counting(terminal, settings.progress(), "read", 0, "records")) {
      partitions =
          TopicScan.readToEnd(
              input.bootstrap(),
              input.topic(),
              "prefixlog-export",
              LookupTopic.MAX_FETCH_BYTES,
              "--file reads a dump",
              progress,
              record -> {
                counts[0]++;
                String where =
                    input.topic()
                        + " partition "
                        + record.partition()
                        + " offset "
                        + record.offset();
                if (record.value() == null) {
                  tombstone(record.key());
                } else {
                  counts[1] += record.value().length;
                  value(record.key(), record.value(), where);
                }
              });
    }
    return String.format(
        Locale.ROOT,
        "export: %s at %s: %s, %s, %s of values%n",
        input.topic(),
        input.bootstrap(),
        Units.count(partitions, "partition"),
        Units.count(counts[0], "record"),
        Units.bytes(counts[1]));
  }

  /** One line of a dump: a record value, or a kcat {@code -J} envelope. */
  private void line(byte[] line, int length, String where) throws IOException {
    if (length == 0 || isBlank(line, length)) {
      blank++;
      return;
    }
    JsonNode node;
    try {
      node = Json.mapper().readTree(line, 0, length);
    } catch (IOException e) {
      bad(where, "not valid JSON");
      return;
    }
    if (node == null || !node.isObject()) {
      bad(where, "not a JSON object");
      return;
    }
    if (!node.has("payload")) {
      value(null, Arrays.copyOf(line, length), where);
      return;
    }
    JsonNode key = node.get("key");
    String recordKey = key != null && key.isTextual() ? key.asText() : null;
    JsonNode payload = node.get("payload");
    if (payload.isNull()) {
      tombstone(recordKey);
    } else if (payload.isTextual()) {
      value(recordKey, payload.asText().getBytes(StandardCharsets.UTF_8), where);
    } else if (payload.isObject()) {
      value(recordKey, Json.mapper().writeValueAsBytes(payload), where);
    } else {
      bad(where, "envelope payload is neither a JSON string nor an object");
    }
  }

  private void value(String key, byte[] value, String where) throws IOException {
    ChunkLookupRecord record;
    try {
      record = SERDE.fromBytes(value);
    } catch (RuntimeException e) {
      bad(where, "not a chunk lookup record");
      return;
    }
    String problem = problem(record);
    if (problem != null) {
      bad(where, problem);
      return;
    }
    records++;
    if (record.isV2()) {
      v2Records++;
    }
    LookupChains.Outcome<List<String>> outcome = resolver.resolve(key, record);
    if (key != null) {
      Integer earlier = byKey.remove(key);
      if (earlier != null) {
        lengths[earlier] = -1;
        replaced++;
      }
    }
    if (!(outcome instanceof LookupChains.Resolved<List<String>> resolved)) {
      return;
    }
    // A version 1 value goes out as the topic holds it, unless it spans lines (not written by
    // prefixlog, which writes compact JSON): a log line is one record.
    byte[] v1 =
        record.isV2() || spansLines(value)
            ? SERDE.toBytes(record.isV2() ? record.asVersion1(resolved.hashes()) : record)
            : value;
    add(key, record.timestamp(), spool.append(v1), v1.length);
  }

  /** What makes a record unusable, or null. */
  private static String problem(ChunkLookupRecord record) {
    if (record == null) {
      return "the value is JSON null";
    }
    if (record.timestamp() == null) {
      return "no timestamp";
    }
    if (record.schemaVersion() != null && !record.isV2()) {
      return "schema_version "
          + record.schemaVersion()
          + " is not one this reader knows (2, or none for version 1)";
    }
    if (record.isV2() && (record.prefixChunks() == null || record.tailHashes() == null)) {
      return "a version 2 record needs prefix_chunks and tail_hashes";
    }
    if (record.isV2() && record.chunkHashes() != null) {
      return "a version 2 record has chunk_hashes (it lists prefix_chunks and tail_hashes)";
    }
    if (!record.isV2() && record.chunkHashes() == null) {
      return "no chunk_hashes";
    }
    return null;
  }

  private void tombstone(String key) {
    tombstones++;
    resolver.tombstone(key);
    Integer earlier = key == null ? null : byKey.remove(key);
    if (earlier != null) {
      lengths[earlier] = -1;
      replaced++;
    }
  }

  private void add(String key, double timestamp, long offset, int length) {
    if (entries == timestamps.length) {
      timestamps = Arrays.copyOf(timestamps, entries * 2);
      offsets = Arrays.copyOf(offsets, entries * 2);
      lengths = Arrays.copyOf(lengths, entries * 2);
    }
    timestamps[entries] = timestamp;
    offsets[entries] = offset;
    lengths[entries] = length;
    if (key != null) {
      byKey.put(key, entries);
    }
    entries++;
  }

  private void bad(String where, String reason) {
    problemCount++;
    if (problems.size() < Trace.PROBLEMS_SHOWN) {
      problems.add(where + ": " + reason);
    }
  }

  /** The entries still live, in timestamp order, ties in the order read. */
  private Integer[] kept() {
    List<Integer> live = new ArrayList<>();
    for (int i = 0; i < entries; i++) {
      if (lengths[i] >= 0) {
        live.add(i);
      }
    }
    Integer[] order = live.toArray(Integer[]::new);
    // Stable: ties keep the order read.
    Arrays.sort(order, (a, b) -> Double.compare(timestamps[a], timestamps[b]));
    return order;
  }

  private void write(Integer[] order, Path target) throws IOException {
    Files.createDirectories(settings.directory());
    Path temporary = Files.createTempFile(settings.directory(), ".export-", ".part");
    try {
      try (OutputStream stream =
              new BufferedOutputStream(Files.newOutputStream(temporary), 1 << 20);
          Progress progress =
              Progress.counting(terminal, settings.progress(), "write", order.length, "lookups")) {
        long done = 0;
        for (int i : order) {
          stream.write(spool.read(offsets[i], lengths[i]));
          stream.write('\n');
          if ((++done & 1023) == 0) {
            progress.update(done);
          }
        }
        progress.update(done);
      }
      Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /**
   * Refuses a directory that already holds logs: {@code analyze --file DIR} and LMCache's tools
   * read every {@code *.jsonl} of a directory, so a second export beside a first would count every
   * lookup twice.
   */
  private static void refuseLogsAlreadyThere(Path directory) throws IOException {
    if (!Files.isDirectory(directory)) {
      if (Files.exists(directory)) {
        throw new IOException("--lmcache-lookups " + directory + " is not a directory");
      }
      return;
    }
    try (DirectoryStream<Path> logs =
        Files.newDirectoryStream(directory, LookupFiles.DIRECTORY_GLOB)) {
      for (Path log : logs) {
        throw new IOException(
            "--lmcache-lookups "
                + directory
                + " already holds "
                + log.getFileName()
                + "; a reader of the directory would read both: give an empty or new directory");
      }
    }
  }

  private static boolean spansLines(byte[] value) {
    for (byte b : value) {
      if (b == '\n' || b == '\r') {
        return true;
      }
    }
    return false;
  }

  private static boolean isBlank(byte[] line, int length) {
    for (int i = 0; i < length; i++) {
      if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
        return false;
      }
    }
    return true;
  }

  private static int failed(Terminal terminal, String message) {
    terminal.err().println("prefixlog export: " + message);
    return Command.FAILED;
  }
}
