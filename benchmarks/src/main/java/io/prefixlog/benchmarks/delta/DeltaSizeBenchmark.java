package io.prefixlog.benchmarks.delta;

import com.github.luben.zstd.util.ZstdVersion;
import io.prefixlog.benchmarks.delta.EncodeTiming.Samples;
import io.prefixlog.benchmarks.delta.EncodeTiming.TurnFilter;
import io.prefixlog.benchmarks.delta.PrefixlogReplay.Turn;
import io.prefixlog.benchmarks.delta.Workload.Session;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Corpora;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.report.TextTable;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.core.delta.TurnEncoder;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Bytes per turn of prefixlog's delta records against gzip and {@code zstd --patch-from} on the
 * bundled corpora, and encode time per turn against zstd's dictionary encode, in one run
 * (docs/design.md#performance-targets: ≤ 0.9× of patch-from with 8 sessions interleaved, ≤ 100 µs
 * per 30 KB body, lossless).
 *
 * <p>Usage: {@code DeltaSizeBenchmark [--corpora DIR] [--quick] [--csv FILE] [--interleave K]
 * [--warmups N] [--repetitions N] [--cross-check N] [--worst N] [--model NAME]}.
 */
public final class DeltaSizeBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "DeltaSizeBenchmark",
          "prefixlog's session deltas against gzip and zstd --patch-from on the conversation corpora:"
              + " bytes per turn, the records' anatomy, encode time; every turn rebuilt (exit 1 if"
              + " any is not).",
          List.of(
              Corpora.OPTION,
              Option.flag("quick", "The first sessions of each workload only."),
              Option.value("csv", "FILE", "none", "Also write the tables as CSV."),
              Option.value("interleave", "K", "8", "Sessions interleaved in the stream."),
              Option.value("warmups", "N", "3", "Unmeasured encode passes."),
              Option.value("repetitions", "N", "5", "Measured encode passes (at least 5)."),
              Option.value(
                  "cross-check", "N", "200 (50 with --quick)", "Turns checked with the CLI."),
              Option.value("worst", "N", "0", "List the N worst turns."),
              Option.value("model", "NAME", "prefixlog-demo", "The model field of the requests.")));

  /** Turns per workload with {@code --quick}. */
  static final int QUICK_TURNS = 300;

  private final Options options;
  private final PrintStream out;
  private final TurnEncoder encoder = new TurnEncoder(EncoderSettings.DEFAULTS);

  private DeltaSizeBenchmark(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /** Runs the benchmark; exits 1 when any turn did not rebuild. */
  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Options::of, options -> new DeltaSizeBenchmark(options, System.out).run());
  }

  /**
   * Everything measured for one workload.
   *
   * @param patchFrom reference bytes per turn, session-major order
   * @param keyframeBytes what the keyframe records add to the sequential stream: its batches' size
   *     minus that of the same stream without them
   * @param deltaBytes the same for the delta records
   * @param marginal bytes each record adds to its producer batch (sequential order), only with
   *     {@code --worst}
   */
  private record Result(
      Workload workload,
      int[] bodyLen,
      long fullBytes,
      long gzipBytes,
      int[] patchFrom,
      List<Turn> turns,
      long sequentialBytes,
      long v2SequentialBytes,
      long keyedBytes,
      long v2KeyedBytes,
      long interleavedBytes,
      long metadataSequentialBytes,
      long keyframeBytes,
      long deltaBytes,
      int[] marginal,
      Samples timing,
      CliCrossCheck.Result cli) {

    int turnCount() {
      return turns.size();
    }

    long patchFromBytes() {
      long sum = 0;
      for (int b : patchFrom) {
        sum += b;
      }
      return sum;
    }

    long mismatches() {
      return turns.stream().filter(t -> !t.rebuilt()).count();
    }
  }

  private int run() {
    Optional<Path> zstd = CliCrossCheck.findZstd();
    printHeader(zstd);

    int limit = options.quick() ? QUICK_TURNS : Integer.MAX_VALUE;
    List<Workload> workloads = Workloads.load(options.corpora(), options.model(), limit);
    List<Result> results = new ArrayList<>();
    Path tmp = null;
    try {
      tmp = Files.createTempDirectory("prefixlog-delta-bench");
      for (Workload workload : workloads) {
        out.printf(
            Locale.ROOT,
            "… %s: %d sessions, %d turns%n",
            workload.name(),
            workload.sessions().size(),
            workload.turns());
        out.flush();
        results.add(measure(workload, zstd, tmp));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    } finally {
      deleteQuietly(tmp);
    }
    out.println();

    List<Result> plain =
        results.stream().filter(r -> !r.workload().name().startsWith("+")).toList();
    List<Result> timestamped =
        results.stream().filter(r -> r.workload().name().startsWith("+")).toList();
    Map<String, TextTable> tables = new java.util.LinkedHashMap<>();
    tables.put("sizes", sizeTable(plain, timestamped));
    tables.put("anatomy", anatomyTable(results));
    tables.put("time", timeTable(plain, timestamped));
    printSizes(tables.get("sizes"));
    printAnatomy(tables.get("anatomy"));
    printTimes(tables.get("time"));
    if (zstd.isPresent()) {
      tables.put("cli", cliTable(results));
      printCli(tables.get("cli"));
    } else {
      out.println(
          "CLI cross-check skipped: no zstd binary at /usr/bin/zstd or on PATH"
              + " (the in-process reference is zstd-jni "
              + ZstdVersion.VERSION
              + ").");
      out.println();
    }
    if (options.worst() > 0) {
      printWorst(results);
    }
    Machine.footer(out);
    if (options.csv() != null) {
      TextTable.writeCsv(options.csv(), tables, out);
    }
    long mismatches = results.stream().mapToLong(Result::mismatches).sum();
    if (mismatches > 0) {
      out.println("FAILED: " + mismatches + " turn(s) did not rebuild byte for byte");
      return 1;
    }
    return 0;
  }

  private Result measure(Workload workload, Optional<Path> zstd, Path tmp) {
    int turns = workload.turns();
    int[] bodyLen = new int[turns];
    int[] patchFrom = new int[turns];
    long full = 0;
    long gzipped = 0;
    try (Gzip gzip = new Gzip();
        PatchFrom reference = new PatchFrom()) {
      int t = 0;
      for (Session session : workload.sessions()) {
        byte[] previous = null;
        for (byte[] body : session.bodies()) {
          bodyLen[t] = body.length;
          full += body.length;
          gzipped += gzip.size(body);
          patchFrom[t++] = reference.size(previous, body);
          previous = body;
        }
      }
    }

    PrefixlogReplay replay = new PrefixlogReplay(encoder::encode, options.model());
    long startMs = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli();
    List<List<Turn>> perSession = replay.run(workload, startMs);
    List<Turn> all = perSession.stream().flatMap(List::stream).toList();
    List<Integer> turnsPerSession = perSession.stream().map(List::size).toList();
    List<byte[]> records = all.stream().map(Turn::json).toList();
    List<byte[]> metadata = all.stream().map(Turn::metadataJson).toList();
    int[] sequential = ProduceOrder.interleaved(turnsPerSession, 1);
    int[] interleaved = ProduceOrder.interleaved(turnsPerSession, options.interleave());
    long sequentialBytes = ProducerBatches.compressedSize(inOrder(records, sequential));
    long v2SequentialBytes =
        ProducerBatches.compressedSize(
            inOrder(all.stream().map(Turn::v2Json).toList(), sequential));
    long keyedBytes =
        ProducerBatches.compressedSize(
            inOrder(all.stream().map(Turn::keyedJson).toList(), sequential));
    long v2KeyedBytes =
        ProducerBatches.compressedSize(
            inOrder(all.stream().map(Turn::v2KeyedJson).toList(), sequential));
    long interleavedBytes = ProducerBatches.compressedSize(inOrder(records, interleaved));
    long metadataBytes = ProducerBatches.compressedSize(inOrder(metadata, sequential));
    List<byte[]> keyframesOnly = new ArrayList<>();
    List<byte[]> deltasOnly = new ArrayList<>();
    for (int index : sequential) {
      (all.get(index).keyframe() ? keyframesOnly : deltasOnly).add(records.get(index));
    }
    long keyframeBytes = sequentialBytes - ProducerBatches.compressedSize(deltasOnly);
    long deltaBytes = sequentialBytes - ProducerBatches.compressedSize(keyframesOnly);
    int[] marginal = options.worst() > 0 ? ProduceOrder.marginalCost(records, sequential) : null;

    Samples timing =
        EncodeTiming.measure(workload, encoder::encode, options.warmups(), options.repetitions());
    CliCrossCheck.Result cli =
        zstd.map(z -> CliCrossCheck.run(workload, options.crossCheck(), z, tmp)).orElse(null);
    return new Result(
        workload,
        bodyLen,
        full,
        gzipped,
        patchFrom,
        all,
        sequentialBytes,
        v2SequentialBytes,
        keyedBytes,
        v2KeyedBytes,
        interleavedBytes,
        metadataBytes,
        keyframeBytes,
        deltaBytes,
        marginal,
        timing,
        cli);
  }

  private static List<byte[]> inOrder(List<byte[]> records, int[] order) {
    List<byte[]> ordered = new ArrayList<>(order.length);
    for (int index : order) {
      ordered.add(records.get(index));
    }
    return ordered;
  }

  // ---------------------------------------------------------------------------------------------
  // Tables

  private TextTable sizeTable(List<Result> plain, List<Result> timestamped) {
    int k = options.interleave();
    TextTable table =
        new TextTable(
            "corpus",
            "sessions",
            "turns",
            "full",
            "gzip-6",
            "patch-from",
            "prefixlog seq",
            "prefixlog K=" + k,
            "seq/pf",
            "K" + k + "/pf",
            "v2 seq",
            "v3/v2",
            "v3/v2 keyed",
            "keyframes",
            "mismatches");
    addSizeRows(table, plain, "TOTAL " + plain.size() + " corpora");
    table.separator();
    addSizeRows(table, timestamped, "TOTAL " + timestamped.size() + " +ts variants");
    return table;
  }

  private static void addSizeRows(TextTable table, List<Result> results, String totalLabel) {
    for (Result r : results) {
      long keyframes = r.turns().stream().filter(Turn::keyframe).count();
      sizeRow(
          table,
          r.workload().name(),
          r.workload().sessions().size(),
          r.turnCount(),
          r.fullBytes(),
          r.gzipBytes(),
          r.patchFromBytes(),
          r.sequentialBytes(),
          r.interleavedBytes(),
          r.v2SequentialBytes(),
          r.keyedBytes(),
          r.v2KeyedBytes(),
          keyframes,
          r.mismatches());
    }
    if (results.size() > 1) {
      sizeRow(
          table,
          totalLabel,
          results.stream().mapToInt(r -> r.workload().sessions().size()).sum(),
          results.stream().mapToInt(Result::turnCount).sum(),
          results.stream().mapToLong(Result::fullBytes).sum(),
          results.stream().mapToLong(Result::gzipBytes).sum(),
          results.stream().mapToLong(Result::patchFromBytes).sum(),
          results.stream().mapToLong(Result::sequentialBytes).sum(),
          results.stream().mapToLong(Result::interleavedBytes).sum(),
          results.stream().mapToLong(Result::v2SequentialBytes).sum(),
          results.stream().mapToLong(Result::keyedBytes).sum(),
          results.stream().mapToLong(Result::v2KeyedBytes).sum(),
          results.stream().flatMap(r -> r.turns().stream()).filter(Turn::keyframe).count(),
          results.stream().mapToLong(Result::mismatches).sum());
    }
  }

  private static void sizeRow(
      TextTable table,
      String name,
      int sessions,
      int turns,
      long full,
      long gzip,
      long patchFrom,
      long sequential,
      long interleaved,
      long v2Sequential,
      long keyed,
      long v2Keyed,
      long keyframes,
      long mismatches) {
    table.row(
        name,
        sessions,
        turns,
        perTurn(full, turns),
        perTurn(gzip, turns),
        perTurn(patchFrom, turns),
        perTurn(sequential, turns),
        perTurn(interleaved, turns),
        ratio(sequential, patchFrom),
        ratio(interleaved, patchFrom),
        perTurn(v2Sequential, turns),
        String.format(Locale.ROOT, "%+.2f%%", 100.0 * (sequential - v2Sequential) / v2Sequential),
        String.format(Locale.ROOT, "%+.2f%%", 100.0 * (keyed - v2Keyed) / v2Keyed),
        keyframes,
        mismatches);
  }

  private void printSizes(TextTable table) {
    out.println(
        "1. Bytes per turn: mean over ALL turns of each file (turn 1 included: stored whole by"
            + " every method).");
    table.print(out);
    out.println(
        "   full = request body; gzip-6 = each body alone, gzip framing; patch-from = zstd -3 of"
            + " the body with the previous turn's body of the same conversation as raw-content"
            + " dictionary (= zstd -3 --patch-from; turn 1: plain zstd -3), no checksum;");
    out.println(
        "   prefixlog = the delta records' JSON values as produced to Kafka, concatenated in"
            + " produce order, in independent "
            + ProducerBatches.GROUP_BYTES / 1024
            + " KiB input groups compressed at zstd "
            + ProducerBatches.LEVEL
            + " (the level the stream app has the broker store session.deltas at), total /"
            + " turns; v2 seq = the same records in the previous layout"
            + " (schema version 2, no chain id), same order and batches: v3/v2 is what the chain"
            + " id costs in the values; v3/v2 keyed = the same with each record's key before its"
            + " value (session_key/chain/seq against session_key/seq).");
    out.println(
        "   seq = sessions one after another in file order (a session's records are"
            + " consecutive); K="
            + options.interleave()
            + " = round-robin over "
            + options.interleave()
            + " concurrent sessions (replay --interleave "
            + options.interleave()
            + "). Target: prefixlog/patch-from <= 0.9 (K=8). mismatches = turns whose record did not"
            + " rebuild the body byte for byte (must be 0).");
    out.println();
  }

  private TextTable anatomyTable(List<Result> results) {
    TextTable table =
        new TextTable(
            "corpus",
            "JSON B/rec",
            "meta B/rec",
            "meta z B/turn",
            "deltas",
            "ops/delta",
            "ins/delta",
            "ins B/delta",
            "base!=prev",
            "kf pf B",
            "kf plog B",
            "delta pf B",
            "delta plog B",
            "delta plog/pf",
            "keyframe reasons");
    for (Result r : results) {
      List<Turn> turns = r.turns();
      int n = turns.size();
      long json = 0;
      long meta = 0;
      long deltas = 0;
      long ops = 0;
      long inserts = 0;
      long inserted = 0;
      long otherBase = 0;
      long kfPf = 0;
      long kfCount = 0;
      long dPf = 0;
      Map<String, Integer> reasons = new TreeMap<>();
      for (int i = 0; i < n; i++) {
        Turn t = turns.get(i);
        json += t.json().length;
        meta += t.metadataJson().length;
        if (t.keyframe()) {
          kfCount++;
          kfPf += r.patchFrom()[i];
          reasons.merge(t.keyframeReason(), 1, Integer::sum);
        } else {
          deltas++;
          ops += t.copies() + t.inserts();
          inserts += t.inserts();
          inserted += t.insertedBytes();
          otherBase += t.baseGap() != 1 ? 1 : 0;
          dPf += r.patchFrom()[i];
        }
      }
      StringBuilder reasonText = new StringBuilder();
      reasons.forEach(
          (reason, count) ->
              reasonText.append(reasonText.length() == 0 ? "" : " ").append(reason + "=" + count));
      table.row(
          r.workload().name(),
          perTurn(json, n),
          perTurn(meta, n),
          perTurn(r.metadataSequentialBytes(), n),
          deltas,
          oneDecimal(deltas == 0 ? 0 : (double) ops / deltas),
          oneDecimal(deltas == 0 ? 0 : (double) inserts / deltas),
          perTurn(inserted, deltas),
          otherBase,
          perTurn(kfPf, kfCount),
          perTurn(r.keyframeBytes(), kfCount),
          perTurn(dPf, deltas),
          perTurn(r.deltaBytes(), deltas),
          ratio(r.deltaBytes(), dPf),
          reasonText.toString());
    }
    return table;
  }

  private void printAnatomy(TextTable table) {
    out.println("2. What the records are made of (means; sequential produce order).");
    table.print(out);
    out.println(
        "   JSON B/rec = record value bytes; meta = the same record without ops and body"
            + " (identity, hashes, bookkeeping); meta z = those metadata-only records through the"
            + " same 64 KiB zstd groups, per turn: the floor the record format sets.");
    out.println(
        "   ops/ins/ins B per delta record; base!=prev = deltas encoded against a base other than"
            + " the previous turn. kf/delta pf B = patch-from bytes per keyframe / delta turn;"
            + " plog B = what those records add to the sequential batches (batches of all records"
            + " minus batches without them), per record of the kind.");
    out.println();
  }

  private TextTable timeTable(List<Result> plain, List<Result> timestamped) {
    TextTable table =
        new TextTable(
            "corpus",
            "turns",
            "enc p50",
            "enc p90",
            "zdict p50",
            "zdict p90",
            "30K turns",
            "30K enc p50",
            "30K enc p90",
            "30K zdict p50",
            "30K zdict p90",
            "30K sha p50");
    for (Result r : plain) {
      timeRow(table, r.workload().name(), r.timing());
    }
    timeRow(table, "TOTAL " + plain.size() + " corpora", pool(plain));
    table.separator();
    for (Result r : timestamped) {
      timeRow(table, r.workload().name(), r.timing());
    }
    timeRow(table, "TOTAL " + timestamped.size() + " +ts variants", pool(timestamped));
    return table;
  }

  private static void timeRow(TextTable table, String name, Samples s) {
    int[] len = s.bodyLen();
    TurnFilter every = t -> true;
    TurnFilter bucket = t -> len[t] >= EncodeTiming.BUCKET_MIN && len[t] <= EncodeTiming.BUCKET_MAX;
    long inBucket = 0;
    for (int l : len) {
      inBucket += l >= EncodeTiming.BUCKET_MIN && l <= EncodeTiming.BUCKET_MAX ? 1 : 0;
    }
    table.row(
        name,
        len.length,
        micros(EncodeTiming.medianOfPercentile(s.encoder(), 50, every)),
        micros(EncodeTiming.medianOfPercentile(s.encoder(), 90, every)),
        micros(EncodeTiming.medianOfPercentile(s.reference(), 50, every)),
        micros(EncodeTiming.medianOfPercentile(s.reference(), 90, every)),
        inBucket,
        micros(EncodeTiming.medianOfPercentile(s.encoder(), 50, bucket)),
        micros(EncodeTiming.medianOfPercentile(s.encoder(), 90, bucket)),
        micros(EncodeTiming.medianOfPercentile(s.reference(), 50, bucket)),
        micros(EncodeTiming.medianOfPercentile(s.reference(), 90, bucket)),
        micros(EncodeTiming.medianOfPercentile(s.sha256(), 50, bucket)));
  }

  /** The samples of several workloads as one, repetition by repetition. */
  private static Samples pool(List<Result> results) {
    int reps = results.get(0).timing().encoder().length;
    int turns = results.stream().mapToInt(r -> r.timing().bodyLen().length).sum();
    long[][] enc = new long[reps][turns];
    long[][] ref = new long[reps][turns];
    long[][] sha = new long[reps][turns];
    int[] len = new int[turns];
    int at = 0;
    for (Result r : results) {
      Samples s = r.timing();
      int n = s.bodyLen().length;
      System.arraycopy(s.bodyLen(), 0, len, at, n);
      for (int rep = 0; rep < reps; rep++) {
        System.arraycopy(s.encoder()[rep], 0, enc[rep], at, n);
        System.arraycopy(s.reference()[rep], 0, ref[rep], at, n);
        System.arraycopy(s.sha256()[rep], 0, sha[rep], at, n);
      }
      at += n;
    }
    return new Samples(enc, ref, sha, len);
  }

  private void printTimes(TextTable table) {
    out.printf(
        Locale.ROOT,
        "3. Encode time per turn, µs (wall clock, JIT-warmed: %d warm-up passes over the corpus,"
            + " then the median over %d measured passes of each pass's p50/p90).%n",
        options.warmups(),
        options.repetitions());
    table.print(out);
    out.println(
        "   enc = TurnEncoder.encode (base choice, SHA-256 and prefix fingerprint of the body,"
            + " ops); zdict = the reference's encode: loadDict(previous body) + zstd -3, in"
            + " the same loop, turn by turn.");
    out.printf(
        Locale.ROOT,
        "   30K columns: only turns whose body is %,d-%,d bytes (target: enc <= 100 µs for a 30 KB"
            + " body); 30K sha p50 = SHA-256 of those bodies alone (part of enc).%n",
        EncodeTiming.BUCKET_MIN,
        EncodeTiming.BUCKET_MAX);
    out.println();
  }

  private TextTable cliTable(List<Result> results) {
    TextTable table =
        new TextTable(
            "corpus",
            "sampled turns",
            "in-process B",
            "+4 B checksum",
            "CLI B",
            "CLI/in-process+chk");
    for (Result r : results) {
      CliCrossCheck.Result c = r.cli();
      table.row(
          r.workload().name(),
          c.sampled(),
          c.inProcess(),
          c.inProcess() + (long) CliCrossCheck.CLI_CHECKSUM_BYTES * c.sampled(),
          c.cli(),
          String.format(Locale.ROOT, "%.3f", c.cliOverInProcessWithChecksum()));
    }
    return table;
  }

  private void printCli(TextTable table) {
    out.println(
        "4. Reference cross-check: in-process patch-from vs `zstd -3 --patch-from=prev -c target"
            + " | wc -c` on turns spread evenly over each workload (CLI: "
            + CliCrossCheck.findZstd().map(CliCrossCheck::version).orElse("?")
            + ").");
    table.print(out);
    out.println(
        "   The CLI also writes a 4-byte content checksum per frame; with it added the two should"
            + " agree within a few %.");
    out.println();
  }

  private void printWorst(List<Result> results) {
    out.printf(
        Locale.ROOT,
        "5. The %d turns per workload where prefixlog's record costs most over patch-from."
            + " plog B = the record compressed with the records before it in its batch as"
            + " dictionary (sequential order): it also pays a frame and its own entropy tables, so"
            + " it overstates small records by tens of bytes; use it to rank, not to add up.%n",
        options.worst());
    TextTable table =
        new TextTable(
            "corpus",
            "session",
            "seq",
            "body B",
            "kind",
            "base gap",
            "chain",
            "copies",
            "inserts",
            "ins B",
            "JSON B",
            "meta B",
            "plog B",
            "pf B");
    for (Result r : results) {
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < r.turnCount(); i++) {
        order.add(i);
      }
      order.sort(
          Comparator.comparingInt((Integer i) -> r.marginal()[i] - r.patchFrom()[i]).reversed());
      for (int i : order.subList(0, Math.min(options.worst(), order.size()))) {
        Turn t = r.turns().get(i);
        table.row(
            r.workload().name(),
            t.session(),
            t.seq(),
            t.bodyLen(),
            t.keyframe() ? t.keyframeReason() : "delta",
            t.baseGap(),
            t.chainDepth(),
            t.copies(),
            t.inserts(),
            t.insertedBytes(),
            t.json().length,
            t.metadataJson().length,
            r.marginal()[i],
            r.patchFrom()[i]);
      }
    }
    table.print(out);
    out.println();
  }

  private void printHeader(Optional<Path> zstd) {
    out.println("DeltaSizeBenchmark: prefixlog session deltas vs gzip and zstd --patch-from");
    Machine.header(out);
    out.println(
        "zstd-jni "
            + ZstdVersion.VERSION
            + "; zstd CLI: "
            + zstd.map(z -> z + " (" + CliCrossCheck.version(z) + ")").orElse("not found"));
    out.println("encoder: " + encoder.settings());
    out.println("prefixlog-core measured: " + Machine.codeSource(TurnEncoder.class));
    out.printf(
        Locale.ROOT,
        "corpora: %s; model field: %s; mode: %s%n",
        options.corpora(),
        options.model(),
        options.quick()
            ? "--quick (the first sessions of each workload, about " + QUICK_TURNS + " turns)"
            : "full (every turn of every file)");
    out.println();
  }

  // ---------------------------------------------------------------------------------------------
  // Formatting and environment

  private static String perTurn(long bytes, long turns) {
    return turns == 0 ? "-" : String.format(Locale.ROOT, "%,.0f", (double) bytes / turns);
  }

  private static String ratio(long a, long b) {
    return b == 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) a / b);
  }

  private static String oneDecimal(double value) {
    return String.format(Locale.ROOT, "%.1f", value);
  }

  private static String micros(double value) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%.1f", value);
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // A leftover temporary directory is harmless; say so instead of failing the run.
      System.err.println("could not delete " + dir + ": " + e.getMessage());
    }
  }

  /** Command-line options. */
  record Options(
      Path corpora,
      boolean quick,
      Path csv,
      int interleave,
      int warmups,
      int repetitions,
      int crossCheck,
      int worst,
      String model) {

    /** The replay tool's default {@code --model}. */
    static final String DEFAULT_MODEL = "prefixlog-demo";

    static Options of(CommandLine line) throws UsageException {
      boolean quick = line.has("quick");
      Path corpora = Corpora.of(line);
      if (!Files.isDirectory(corpora)) {
        throw new UsageException("--corpora " + corpora + " is not a directory");
      }
      return new Options(
          corpora.toAbsolutePath().normalize(),
          quick,
          line.value("csv").map(Path::of).orElse(null),
          (int) line.longValue("interleave", 8, 1),
          (int) line.longValue("warmups", 3, 0),
          (int) line.longValue("repetitions", 5, 5),
          (int) line.longValue("cross-check", quick ? 50 : 200, 1),
          (int) line.longValue("worst", 0, 0),
          line.string("model", DEFAULT_MODEL));
    }
  }
}
