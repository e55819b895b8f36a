package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.analysis.mrc.Analysis;
import io.prefixlog.analysis.mrc.Curve;
import io.prefixlog.analysis.mrc.LookupRequest;
import io.prefixlog.analysis.mrc.MrcAnalyzer;
import io.prefixlog.analysis.mrc.NaiveLru;
import io.prefixlog.analysis.mrc.NaiveMin;
import io.prefixlog.analysis.mrc.OptAnalyzer;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.analysis.mrc.Weighting;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.analyze.TraceLines.Req;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AnalyzeCommandTest {
  private static final String MODEL = "meta-llama/Llama-3.1-8B-Instruct";

  @TempDir Path dir;
  private final CapturedTerminal console = new CapturedTerminal();

  private int analyze(String... args) {
    return new AnalyzeCommand(console.fresh()).run(args);
  }

  private Path write(String name, List<String> lines) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    return Files.write(file, lines, StandardCharsets.UTF_8);
  }

  /** Three requests of 4-token chunks; keys not chained, so the two semantics differ. */
  private static List<Req> tiny() {
    return List.of(
        Req.of(1_763_700_000.5, "m", 4, 10, 0xa, 0xb).withEngine(8L, null),
        Req.of(1_763_700_001.5, "m", 4, 12, 0xa, 0xb, 0xc).withEngine(10L, 4L),
        Req.of(1_763_700_002.5, "m", 4, 9, 0xd, 0xa));
  }

  @Test
  void shouldWriteTheExactCurveAndRollingRatesOfATinyTrace() throws IOException {
    // Given: a, b; then a, b, c; then d, a. Distances: r2 a=2 b=2; r3 a=4 after d (cold).
    Path file =
        write("tiny.jsonl", tiny().stream().map(r -> TraceLines.prefixlog(r, "tokens")).toList());

    // When
    int code =
        analyze(
            "--file", file.toString(),
            "--csv", dir.resolve("csv").toString(),
            "--points", "4",
            "--capacity", "2",
            "--capacity", "4",
            "--bytes-per-chunk", "1KiB",
            "--window", "1s");

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(Files.readString(dir.resolve("csv/curve.csv")))
        .isEqualTo(
            """
model,unit,capacity_chunks,capacity_bytes,prefix_units,prefix_chunks,per_chunk_units,per_chunk_chunks,opt_units,opt_chunks,opt_prefix_units,opt_prefix_chunks
m,tokens,1,1024,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000
m,tokens,2,2048,0.258065,0.285714,0.258065,0.285714,0.387097,0.428571,0.258065,0.285714
m,tokens,3,3072,0.258065,0.285714,0.258065,0.285714,0.387097,0.428571,0.258065,0.285714
m,tokens,4,4096,0.258065,0.285714,0.387097,0.428571,0.387097,0.428571,0.258065,0.285714
""");
    assertThat(Files.readString(dir.resolve("csv/rolling.csv")))
        .isEqualTo(
            """
model,unit,window_start,window_end,requests,chunk_lookups,capacity_chunks,capacity_bytes,window_prefix_units,cumulative_prefix_units,window_prefix_chunks,cumulative_prefix_chunks,window_per_chunk_units,cumulative_per_chunk_units,engine_window,engine_cumulative
m,tokens,2025-11-21T04:40:00Z,2025-11-21T04:40:01Z,1,2,2,2048,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000
m,tokens,2025-11-21T04:40:00Z,2025-11-21T04:40:01Z,1,2,4,4096,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000,0.000000
m,tokens,2025-11-21T04:40:01Z,2025-11-21T04:40:02Z,1,3,2,2048,0.666667,0.363636,0.666667,0.400000,0.666667,0.363636,0.400000,0.222222
m,tokens,2025-11-21T04:40:01Z,2025-11-21T04:40:02Z,1,3,4,4096,0.666667,0.363636,0.666667,0.400000,0.666667,0.363636,0.400000,0.222222
m,tokens,2025-11-21T04:40:02Z,2025-11-21T04:40:03Z,1,2,2,2048,0.000000,0.258065,0.000000,0.285714,0.000000,0.258065,,0.222222
m,tokens,2025-11-21T04:40:02Z,2025-11-21T04:40:03Z,1,2,4,4096,0.000000,0.258065,0.000000,0.285714,0.444444,0.387097,,0.222222
""");
  }

  @Test
  void shouldSummariseTheCurveTheCapacitiesForShareOfTheAchievableAndTheEngine()
      throws IOException {
    // Given
    Path file =
        write("tiny.jsonl", tiny().stream().map(r -> TraceLines.prefixlog(r, "tokens")).toList());

    // When
    int code = analyze("--file", file.toString(), "--capacity", "3");

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out())
        .startsWith("analyze: " + file + ": 3 lookup records\n")
        .contains("== m  (chunks of 4 tokens)\n")
        .contains(
            "  requests 3, chunk lookups 7, tokens 31 (9.7% in partial last chunks: always"
                + " misses)\n")
        .contains("  working set       4 chunks: distinct chunks")
        .contains("  achievable        25.8% of tokens (prefix cache), 28.6% of chunk lookups")
        .contains("50% of achievable (25.8%): 2 chunks")
        .contains(
            "  engine actual     22.2% of 18 prompt tokens were cached (2 of 3 requests reported"
                + " usage)\n")
        .contains(
            "    capacity  prefix tokens  prefix chunks  per-chunk tokens  per-chunk chunks\n"
                + "    2 chunks          25.8%          28.6%             25.8%            "
                + " 28.6%  50% of achievable, 90% of achievable, 99% of achievable\n"
                + "    3 chunks          25.8%          28.6%             25.8%            "
                + " 28.6%  --capacity 3\n"
                + "    4 chunks          25.8%          28.6%             38.7%            "
                + " 42.9%  working set\n");
  }

  @Test
  void shouldPutTheOptimalBoundAndItsGapToLruBesideTheLruTable() throws IOException {
    // Given: a b | a b c | d a. MIN with 2 chunks evicts b for c (b is never used again) and c
    // for d, so the last a hits too: 3 of 7 lookups, 12 of 31 tokens; LRU hits 2 (8 tokens).
    Path file =
        write("tiny.jsonl", tiny().stream().map(r -> TraceLines.prefixlog(r, "tokens")).toList());

    // When
    int code = analyze("--file", file.toString(), "--capacity", "3");

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains(
            "  optimal bound     OPT = Belady/MIN per chunk: no eviction policy of a cache of that"
                + " capacity\n"
                + "                    gets more (prefix caches included); gap = OPT - LRU"
                + " prefix:\n"
                + "    capacity  LRU prefix tokens  LRU per-chunk tokens  OPT tokens        gap\n"
                + "    2 chunks              25.8%                 25.8%       38.7%  +12.9 pts\n"
                + "    3 chunks              25.8%                 25.8%       38.7%  +12.9 pts\n"
                + "    4 chunks              25.8%                 38.7%       38.7%  +12.9 pts\n"
                + "    largest gap: +12.9 pts at 2 chunks (LRU 25.8%, OPT 38.7%)\n");
  }

  @Test
  void shouldLeaveTheOptimalBoundOutWithNoOptAndSayWhyWhenSampling() throws IOException {
    // Given
    Path file =
        write("tiny.jsonl", tiny().stream().map(r -> TraceLines.prefixlog(r, "tokens")).toList());

    // When
    int skipped =
        analyze("--file", file.toString(), "--no-opt", "--csv", dir.resolve("a").toString());
    String skippedOut = console.out();
    int sampled = analyze("--file", file.toString(), "--sample", "0.5");
    String sampledOut = console.out();

    // Then
    assertThat(skipped).as(console.err()).isEqualTo(Command.OK);
    assertThat(skippedOut).doesNotContain("optimal bound");
    assertThat(Files.readAllLines(dir.resolve("a/curve.csv")))
        .allMatch(row -> row.startsWith("model,") || row.endsWith(",,,,"));
    assertThat(sampled).as(console.err()).isEqualTo(Command.OK);
    assertThat(sampledOut)
        .contains(
            "  optimal bound     not computed: MIN cannot be estimated from a sample of chunk"
                + " hashes\n");
  }

  @Test
  void shouldGiveTheSameResultForLmcacheFilesAsForTheEquivalentPrefixlogRecords()
      throws IOException {
    // Given: one random trace, as two LMCache log files (out of order) and as a prefixlog dump
    List<Req> trace = TraceLines.random(7, 60, List.of(MODEL, "qwen/Qwen3-32B"));
    int half = trace.size() / 2;
    Path lmcache = dir.resolve("lmcache");
    write(
        "lmcache/lookup_hashes_20251121_090000_000001.jsonl",
        trace.subList(0, half).stream().map(TraceLines::lmcache).toList());
    write(
        "lmcache/chunk_hashes_20251121_030000_000000.jsonl",
        trace.subList(half, trace.size()).stream().map(TraceLines::lmcache).toList());
    List<String> records =
        new ArrayList<>(trace.stream().map(r -> TraceLines.prefixlog(r, "tokens")).toList());
    java.util.Collections.reverse(records);
    Path dump = write("dump/chunk.lookups.jsonl", records);
    String kv = Long.toString(TraceLines.LMCACHE_KV_BYTES);

    // When
    int lmcacheCode =
        analyze(
            "--file",
            lmcache.toString(),
            "--csv",
            dir.resolve("a").toString(),
            "--bytes-per-chunk",
            kv,
            "--window",
            "5m",
            "--capacity",
            "20",
            "--capacity",
            "100");
    String lmcacheOut = console.out();
    int prefixlogCode =
        analyze(
            "--file",
            dump.toString(),
            "--csv",
            dir.resolve("b").toString(),
            "--bytes-per-chunk",
            kv,
            "--window",
            "5m",
            "--capacity",
            "20",
            "--capacity",
            "100");
    String prefixlogOut = console.out();

    // Then
    assertThat(lmcacheCode).isEqualTo(Command.OK);
    assertThat(prefixlogCode).isEqualTo(Command.OK);
    assertThat(lmcacheOut)
        .contains(
            "2 files: "
                + trace.size()
                + " lookup records ("
                + trace.size()
                + " LMCache lookup-log lines)");
    assertThat(Files.readString(dir.resolve("a/curve.csv")))
        .isEqualTo(Files.readString(dir.resolve("b/curve.csv")));
    assertThat(Files.readString(dir.resolve("a/rolling.csv")))
        .isEqualTo(Files.readString(dir.resolve("b/rolling.csv")));
    assertThat(Files.readAllLines(dir.resolve("a/curve.csv"))).hasSizeGreaterThan(50);
    assertThat(analysisPart(lmcacheOut))
        .isEqualTo(analysisPart(prefixlogOut))
        .contains("== all models");
  }

  @Test
  void shouldTakeTheKvBytesOfAChunkFromLmcacheShapesAndDtypes() throws IOException {
    // Given
    write(
        "lookup_hashes_20251121_030000_000000.jsonl",
        tiny().stream().map(TraceLines::lmcache).toList());

    // When
    int code = analyze("--file", dir.toString(), "--capacity", "8KiB");

    // Then: 2 × 4 × 16 × 2 × 8 bf16 = 4 KiB a chunk; 8 KiB = 2 chunks
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains(
            "== m  (chunks of 4 tokens; 4.00 KiB of KV per chunk, from LMCache shapes x dtypes)")
        .contains("    2 chunks (8.00 KiB)")
        .contains("--capacity 8KiB");
  }

  @Test
  void shouldEqualTheNaiveSimulatorAtEveryCapacityPerModelAndOverall() throws IOException {
    // Given
    List<String> models = List.of(MODEL, "qwen/Qwen3-32B");
    List<Req> trace = TraceLines.random(42, 40, models);
    Path file =
        write("trace.jsonl", trace.stream().map(r -> TraceLines.prefixlog(r, "bytes")).toList());

    // When: every capacity from 1 to the working set
    int code =
        analyze(
            "--file",
            file.toString(),
            "--csv",
            dir.resolve("csv").toString(),
            "--points",
            "100000",
            "--capacity",
            "37",
            "--window",
            "10m");

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    List<Req> sorted = new ArrayList<>(trace);
    sorted.sort(Comparator.comparingDouble(Req::timestamp));
    List<String> rows = Files.readAllLines(dir.resolve("csv/curve.csv"));
    int checked = 0;
    for (String row : rows.subList(1, rows.size())) {
      String[] f = row.split(",");
      long capacity = Long.parseLong(f[2]);
      Map<String, NaiveLru> naive = new HashMap<>();
      Map<String, NaiveMin> naiveMin = new HashMap<>();
      for (Req r : sorted) {
        naive
            .computeIfAbsent(r.model(), m -> new NaiveLru(capacity))
            .accept(r.keys(), 0, r.keys().length, r.chunkSize(), r.seqLen());
        naiveMin
            .computeIfAbsent(r.model(), m -> new NaiveMin(capacity))
            .accept(r.keys(), 0, r.keys().length, r.chunkSize(), r.seqLen());
      }
      naiveMin.values().forEach(NaiveMin::finish);
      List<NaiveLru> scope =
          f[0].equals("*") ? List.copyOf(naive.values()) : List.of(naive.get(f[0]));
      List<NaiveMin> minScope =
          f[0].equals("*") ? List.copyOf(naiveMin.values()) : List.of(naiveMin.get(f[0]));
      assertThat(row)
          .as("capacity %d", capacity)
          .isEqualTo(
              String.join(
                  ",",
                  f[0],
                  "bytes",
                  f[2],
                  "",
                  rate(scope, Semantics.PREFIX, Weighting.UNITS),
                  rate(scope, Semantics.PREFIX, Weighting.CHUNKS),
                  rate(scope, Semantics.PER_CHUNK, Weighting.UNITS),
                  rate(scope, Semantics.PER_CHUNK, Weighting.CHUNKS),
                  minRate(minScope, Semantics.PER_CHUNK, Weighting.UNITS),
                  minRate(minScope, Semantics.PER_CHUNK, Weighting.CHUNKS),
                  minRate(minScope, Semantics.PREFIX, Weighting.UNITS),
                  minRate(minScope, Semantics.PREFIX, Weighting.CHUNKS)));
      checked++;
    }
    assertThat(checked).isGreaterThan(300);
    // And the prefix and per-chunk semantics do differ on this trace somewhere
    assertThat(rows)
        .anyMatch(
            r -> {
              String[] f = r.split(",");
              return !f[4].equals(f[6]);
            });
  }

  @Test
  void shouldEqualTheNaiveSimulatorInEveryWindowAndCumulatively() throws IOException {
    // Given
    List<Req> trace = TraceLines.random(3, 50, List.of(MODEL));
    Path file =
        write("trace.jsonl", trace.stream().map(r -> TraceLines.prefixlog(r, "tokens")).toList());
    long capacity = 25;

    // When
    int code =
        analyze(
            "--file",
            file.toString(),
            "--csv",
            dir.resolve("csv").toString(),
            "--capacity",
            Long.toString(capacity),
            "--window",
            "5m");

    // Then: replay the naive LRU window by window
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    List<Req> sorted = new ArrayList<>(trace);
    sorted.sort(Comparator.comparingDouble(Req::timestamp));
    NaiveLru cumulative = new NaiveLru(capacity);
    Map<Long, long[]> windows =
        new java.util.TreeMap<>(); // window → units, prefix unit hits, per-chunk unit hits
    for (Req r : sorted) {
      long before = cumulative.unitHits(Semantics.PREFIX);
      long beforePerChunk = cumulative.unitHits(Semantics.PER_CHUNK);
      cumulative.accept(r.keys(), 0, r.keys().length, r.chunkSize(), r.seqLen());
      long[] w =
          windows.computeIfAbsent(
              (long) Math.floor(r.timestamp() * 1000) / 300_000, k -> new long[3]);
      w[0] += r.seqLen();
      w[1] += cumulative.unitHits(Semantics.PREFIX) - before;
      w[2] += cumulative.unitHits(Semantics.PER_CHUNK) - beforePerChunk;
    }
    List<String> rows = Files.readAllLines(dir.resolve("csv/rolling.csv"));
    assertThat(rows).hasSize(windows.size() + 1);
    int i = 1;
    long units = 0;
    long prefixHits = 0;
    for (long[] w : windows.values()) {
      units += w[0];
      prefixHits += w[1];
      String[] f = rows.get(i++).split(",", -1);
      assertThat(f[8]).isEqualTo(CsvFiles.rate((double) w[1] / w[0]));
      assertThat(f[9]).isEqualTo(CsvFiles.rate((double) prefixHits / units));
      assertThat(f[12]).isEqualTo(CsvFiles.rate((double) w[2] / w[0]));
    }
    assertThat(rows.get(rows.size() - 1).split(",")[9])
        .isEqualTo(CsvFiles.rate(cumulative.hitRate(Semantics.PREFIX, Weighting.UNITS)));
  }

  @Test
  void shouldDrawChartsThatDecodeAsPicturesOfTheExpectedSize() throws IOException {
    // Given: two models and engine figures
    List<Req> trace = new ArrayList<>();
    for (Req r : TraceLines.random(5, 30, List.of(MODEL, "qwen/Qwen3-32B"))) {
      trace.add(r.withEngine(r.seqLen() / 4, r.seqLen() / 8));
    }
    Path file =
        write("trace.jsonl", trace.stream().map(r -> TraceLines.prefixlog(r, "bytes")).toList());

    // When
    int code = analyze("--file", file.toString(), "--png", dir.resolve("png").toString());

    // Then
    assertThat(code).as(console.err()).isEqualTo(Command.OK);
    for (String name :
        List.of(
            "curve.png",
            "rolling.png",
            "curve-meta-llama-llama-3.1-8b-instruct.png",
            "rolling-meta-llama-llama-3.1-8b-instruct.png",
            "curve-qwen-qwen3-32b.png",
            "rolling-qwen-qwen3-32b.png")) {
      Path png = dir.resolve("png").resolve(name);
      assertThat(console.out()).contains("wrote " + png);
      BufferedImage image = ImageIO.read(png.toFile());
      assertThat(image).as(name).isNotNull();
      assertThat(image.getWidth()).isEqualTo(HitRateChart.WIDTH);
      assertThat(image.getHeight()).isEqualTo(HitRateChart.HEIGHT);
    }
  }

  @Test
  void shouldDrawTheOptimalLineAndMarkItsLargestGapOnlyWhenComputed() {
    // Given: the tiny trace, whose OPT curve lies above LRU's at 2 and 3 chunks
    MrcAnalyzer lru = MrcAnalyzer.exact();
    OptAnalyzer opt = new OptAnalyzer();
    for (Req r : tiny()) {
      LookupRequest request = LookupRequest.of(0, r.model(), r.keys(), r.chunkSize(), r.seqLen());
      lru.accept(request);
      opt.accept(request);
    }
    Analysis analysis = lru.finish();
    Curve optimal = opt.finish().overall();
    Subject with = new Subject(analysis.overall(), "m", "tokens", 4, 0, null, optimal);
    Subject without = new Subject(analysis.overall(), "m", "tokens", 4, 0, null, null);

    // When
    List<String> withSeries = Charts.curve(with, analysis, Map.of()).seriesNames();
    List<String> withoutSeries = Charts.curve(without, analysis, Map.of()).seriesNames();

    // Then: one more line and one more mark (the largest gap, at 2 chunks)
    assertThat(Report.widestGap(with)).isEqualTo(2);
    assertThat(withSeries)
        .contains("OPT (Belady/MIN), per chunk: the most any eviction policy gets")
        .hasSize(withoutSeries.size() + 2);
    assertThat(withoutSeries).noneMatch(name -> name.startsWith("OPT"));
  }

  @Test
  void shouldReportBadLinesWithFileAndLineAndAnalyseTheRest() throws IOException {
    // Given
    List<Req> tiny = tiny();
    Path file =
        write(
            "mixed.jsonl",
            List.of(
                TraceLines.prefixlog(tiny.get(0), "tokens"),
                "{not json",
                "{\"request_id\":\"x\"}",
                "[1,2,3]",
                "",
                "{\"timestamp\":1.0,\"chunk_size\":4,\"seq_len\":3,\"chunk_hashes\":[\"0x1\"]}",
                "{\"timestamp\":1.0,\"chunk_size\":4,\"seq_len\":8,\"chunk_hashes\":[\"0xzz\"]}",
                "{\"timestamp\":1.0,\"chunk_size\":4,\"seq_len\":8,\"chunk_hashes\":[],\"chunk_unit\":\"words\"}",
                TraceLines.prefixlog(tiny.get(1), "tokens"),
                TraceLines.prefixlog(tiny.get(2), "tokens")));

    // When
    int code = analyze("--file", file.toString());

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains("  1 blank line skipped\n")
        .contains(
            "  6 bad lines skipped (first 6):\n"
                + "    "
                + file
                + ":2: not valid JSON (at column 2)\n"
                + "    "
                + file
                + ":3: no timestamp (not a chunk-hash lookup record or LMCache lookup line)\n"
                + "    "
                + file
                + ":4: not a JSON object\n"
                + "    "
                + file
                + ":6: seq_len 3 is less than chunk_hashes x chunk_size = 1 x 4\n"
                + "    "
                + file
                + ":7: chunk_hashes[0] is not a hex hash: not a hex digit at index 2\n"
                + "    "
                + file
                + ":8: chunk_unit must be bytes or tokens\n")
        .contains("  requests 3, chunk lookups 7");
    assertThat(console.err())
        .isEqualTo("prefixlog analyze: 6 bad lines were skipped; the summary lists where\n");
  }

  @Test
  void shouldKeepOnlyTheModelAskedFor() throws IOException {
    // Given
    List<Req> trace = TraceLines.random(9, 20, List.of(MODEL, "qwen/Qwen3-32B"));
    long llama = trace.stream().filter(r -> r.model().equals(MODEL)).count();
    Path file = write("trace.jsonl", trace.stream().map(TraceLines::lmcache).toList());

    // When
    int code = analyze("--file", file.toString(), "--model", MODEL);

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains(
            "--model "
                + MODEL
                + ": "
                + llama
                + " kept, "
                + (trace.size() - llama)
                + " of other models left out")
        .contains("== " + MODEL)
        .doesNotContain("== all models")
        .doesNotContain("== qwen");
  }

  @Test
  void shouldKeepTokensAndBytesOfOneModelInSeparateCaches() throws IOException {
    // Given
    Path file =
        write(
            "both.jsonl",
            List.of(
                TraceLines.lmcache(tiny().get(0)), TraceLines.prefixlog(tiny().get(1), "bytes")));

    // When
    int code = analyze("--file", file.toString());

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains(
            "== all models  (each model has its own cache of the capacity shown; mixed units: rates"
                + " count chunks)")
        .contains("== m [bytes]")
        .contains("== m [tokens]");
  }

  @Test
  void shouldSampleWhenAskedAndSaySo() throws IOException {
    // Given
    Path file =
        write(
            "trace.jsonl",
            TraceLines.random(1, 50, List.of(MODEL)).stream().map(TraceLines::lmcache).toList());

    // When
    int code = analyze("--file", file.toString(), "--sample", "0.5");

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .contains(
            "  SHARDS sampling: 50.0000% of chunk hashes (rate 0.500000); hit rates and the working"
                + " set are estimates, for capacities of 2 chunks and more\n");
  }

  @Test
  void shouldFailWhenThereIsNothingToAnalyse() throws IOException {
    // Given
    Path file = write("empty.jsonl", List.of(""));

    // When
    int code = analyze("--file", file.toString());

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(console.out()).endsWith("FAILED: no lookup records to analyse\n");
  }

  @Test
  void shouldNameTheOptionOfABadCommandLine() throws IOException {
    Path file =
        write("tiny.jsonl", tiny().stream().map(r -> TraceLines.prefixlog(r, "bytes")).toList());
    assertThat(analyze("--file", file.toString(), "--capacity", "40GiB")).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog analyze: --capacity 40GiB is in bytes, but the KV bytes of a chunk are not"
                + " known: give --bytes-per-chunk, or the capacity in chunks\n");
    assertThat(analyze("--file", file.toString(), "--capacity", "12 parsecs"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog analyze: --capacity: unknown size unit 'parsecs' (B, KB, MB, GB, TB, KiB,"
                + " MiB, GiB, TiB)\n");
    assertThat(analyze("--file", file.toString(), "--sample", "0")).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .startsWith("prefixlog analyze: --sample must be a fraction in (0, 1]");
    assertThat(analyze("--file", file.toString(), "--window", "5 minutes"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err())
        .startsWith("prefixlog analyze: --window: expected a duration such as 30s");
    assertThat(analyze("--file", file.toString(), "--bootstrap", "k:9092"))
        .isEqualTo(Command.USAGE);
    assertThat(console.err()).contains("give one or the other");
    assertThat(analyze("--file", dir.resolve("nope").toString())).isEqualTo(Command.FAILED);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog analyze: --file " + dir.resolve("nope") + ": no such file or directory\n");
  }

  @Test
  void shouldListEveryOptionInItsHelp() {
    assertThat(analyze("--help")).isEqualTo(Command.OK);
    for (var option : AnalyzeCommand.OPTIONS) {
      assertThat(console.out()).contains("  --" + option.name());
    }
    assertThat(console.out()).startsWith("Usage: prefixlog analyze [options]\n");
  }

  private static String rate(List<NaiveLru> scope, Semantics semantics, Weighting weighting) {
    long hits = 0;
    long total = 0;
    for (NaiveLru lru : scope) {
      hits += weighting == Weighting.CHUNKS ? lru.hits(semantics) : lru.unitHits(semantics);
      total += weighting == Weighting.CHUNKS ? lru.accesses() : lru.units();
    }
    return String.format(Locale.ROOT, "%.6f", total == 0 ? 0 : (double) hits / total);
  }

  private static String minRate(List<NaiveMin> scope, Semantics semantics, Weighting weighting) {
    long hits = 0;
    long total = 0;
    for (NaiveMin min : scope) {
      hits += weighting == Weighting.CHUNKS ? min.hits(semantics) : min.unitHits(semantics);
      total += weighting == Weighting.CHUNKS ? min.accesses() : min.units();
    }
    return String.format(Locale.ROOT, "%.6f", total == 0 ? 0 : (double) hits / total);
  }

  /** The summary from the first analysed cache on: what does not depend on the input's form. */
  private static String analysisPart(String summary) {
    return summary.substring(summary.indexOf("\n== "), summary.indexOf("\nwrote "));
  }
}
