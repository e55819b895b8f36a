package io.prefixlog.benchmarks.mrc;

import io.prefixlog.analysis.mrc.Analysis;
import io.prefixlog.analysis.mrc.Curve;
import io.prefixlog.analysis.mrc.MrcAnalyzer;
import io.prefixlog.analysis.mrc.NaiveLru;
import io.prefixlog.analysis.mrc.NaiveMin;
import io.prefixlog.analysis.mrc.OptAnalyzer;
import io.prefixlog.analysis.mrc.Sampling;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.analysis.mrc.Weighting;
import io.prefixlog.analysis.mrc.Windowing;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.report.TextTable;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The analysis target (docs/design.md#performance-targets): the exact LRU hit-rate curve for every
 * capacity in one pass over 100 M lookups in ≤ 30 s on one thread, and a sampled curve in ≤ 1 s.
 * For each key space (default 1 M and 10 M distinct chunks, Zipf α = 0.9) it times, on the same
 * in-memory trace and in one JVM:
 *
 * <ol>
 *   <li>exact: {@link MrcAnalyzer} without windows (the curve), and again with hourly windows at
 *       four capacities (what {@code analyze} does);
 *   <li>naive: {@link NaiveLru} at one capacity, the reference that LMCache's simulator re-runs per
 *       capacity point; its hits must equal the exact curve's at that capacity (exit 1 if not);
 *   <li>sampled: SHARDS at {@code --sample-rate}, and its mean absolute error against the exact
 *       curve over {@code --points} log-spaced capacities;
 *   <li>with {@code --opt}: {@link OptAnalyzer}, the optimal (Belady/MIN) curve for every capacity,
 *       and {@link NaiveMin}, a direct MIN simulation of the naive capacity, whose hits must equal
 *       the OPT curve's there (exit 1 if not). Off by default, for memory rather than time: the OPT
 *       pass keeps every lookup (about 20 bytes each) and the naive MIN a boxed copy of the trace,
 *       which the default 100 M lookups do not fit in {@code -Xmx4g} next to the trace.
 * </ol>
 *
 * <p>{@code MrcBenchmark --help} lists the options. Heap: the trace is 8 bytes per lookup (800 MB
 * at 100 M); run 100 M lookups with {@code -Xmx4g}.
 */
public final class MrcBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "MrcBenchmark",
          "Exact LRU hit rate vs capacity in one pass, against a naive LRU at one capacity and SHARDS"
              + " sampling, on Zipf traces. Heap: 8 bytes per lookup (run 100 M with -Xmx4g).",
          List.of(
              Option.value("lookups", "N", "100000000", "Lookups in each trace."),
              Option.value(
                  "keys", "K1,K2,...", "1000000,10000000", "Key spaces (distinct chunks)."),
              Option.value("alpha", "A", "0.9", "Zipf exponent."),
              Option.value("chunks", "MIN-MAX", "8-64", "Chunks per request."),
              Option.value("sample-rate", "R", "0.01", "SHARDS sampling rate."),
              Option.value("points", "P", "30", "Log-spaced capacities of the error figure."),
              Option.value("naive-capacity", "C", "a tenth of the keys", "Naive LRU's capacity."),
              Option.flag("no-naive", "Skip the naive LRU."),
              Option.flag("no-windows", "Skip the hourly windows."),
              Option.flag(
                  "opt",
                  "Also time the OPT (Belady/MIN) curve for every capacity and a naive MIN at the"
                      + " naive capacity (the OPT pass keeps every lookup: about 20 bytes each)."),
              Option.value("repeat", "R", "1", "Exact (and OPT) passes per key space (median)."),
              Option.value("seed", "S", "20261121", "Trace seed."),
              Option.value("csv", "FILE", "none", "Also write the tables as CSV.")));

  /** Window capacities as fractions of the key space. */
  private static final double[] WINDOW_FRACTIONS = {0.0001, 0.001, 0.01, 0.1};

  private final Options options;
  private final PrintStream out;

  private MrcBenchmark(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /** Runs the benchmark; exits 1 when the naive and exact hits differ. */
  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Options::of, options -> new MrcBenchmark(options, System.out).run());
  }

  /** Everything measured for one key space. */
  private record Result(
      int keySpace,
      long lookups,
      int requests,
      double generateSeconds,
      Passes exactPasses,
      double windowsSeconds,
      long analysisHeapMiB,
      double naiveSeconds,
      double naiveCpuSeconds,
      long naiveCapacity,
      boolean naiveMatches,
      double sampledSeconds,
      double sampledCpuSeconds,
      long sampledLookups,
      long sampledRequests,
      double maeChunks,
      double maeUnits,
      double maePrefixUnits,
      double maxErrorChunks,
      double maeResolvable,
      Curve exact,
      Curve sampled,
      OptResult opt) {}

  /** The OPT figures of one key space (null when {@code --opt} is off). */
  private record OptResult(
      Passes passes,
      double minSeconds,
      double minCpuSeconds,
      long minHits,
      long minPrefixHits,
      boolean matches,
      Curve curve) {}

  /** One naive simulation's pass: its seconds, its hits and whether they match the curve's. */
  private record NaiveCheck(
      double seconds, double cpuSeconds, long hits, long prefixHits, boolean matches) {}

  /** The wall and CPU seconds of the repeated passes of one analysis ({@code --repeat}). */
  private static final class Passes {
    private final List<Double> wallSeconds = new ArrayList<>();
    private final List<Double> cpuSeconds = new ArrayList<>();

    void add(double wall, double cpu) {
      wallSeconds.add(wall);
      cpuSeconds.add(cpu);
    }

    double wallMedian() {
      return Medians.of(wallSeconds);
    }

    double cpuMedian() {
      return Medians.of(cpuSeconds);
    }

    /** Each pass's wall seconds, as the tables list them. */
    String walls() {
      return wallSeconds.stream().map(s -> f(1, s)).toList().toString();
    }
  }

  private int run() {
    out.println(
        "MrcBenchmark: exact LRU hit rate vs capacity in one pass, vs naive LRU and SHARDS");
    Machine.header(out, MrcAnalyzer.class);
    out.printf(
        Locale.ROOT,
        "workload: %,d lookups per key space, Zipf alpha %.2f over %s distinct chunks, requests of"
            + " %d-%d chunks of %d tokens + a 0-255 token tail, seed %d; one model, one thread%n",
        options.lookups(),
        options.alpha(),
        Arrays.toString(options.keySpaces()),
        options.minChunks(),
        options.maxChunks(),
        ZipfTrace.CHUNK_TOKENS,
        options.seed());
    out.printf(
        Locale.ROOT,
        "started %s; exact runs: %d; sampling rate %s; MAE over %d log-spaced capacities%n%n",
        Instant.now(),
        options.repeat(),
        options.sampleRate(),
        options.points());
    out.flush();

    List<Result> results = new ArrayList<>();
    for (int keySpace : options.keySpaces()) {
      results.add(measure(keySpace));
    }

    Map<String, TextTable> tables = new LinkedHashMap<>();
    tables.put("time", timeTable(results));
    tables.put("sampling", samplingTable(results));
    for (Result result : results) {
      tables.put("curve-" + result.keySpace(), curveTable(result));
    }
    if (options.opt()) {
      tables.put("opt", optTable(results));
    }
    out.println();
    out.println(
        "Table 1: time of one pass over the in-memory trace, one thread (wall clock and that"
            + " thread's CPU time)");
    tables.get("time").print(out);
    out.println();
    out.println(
        "Table 2: SHARDS at rate "
            + options.sampleRate()
            + " against the exact curve: mean absolute error of the hit rate over "
            + options.points()
            + " log-spaced capacities from 1 to saturation, and from 1/rate to saturation");
    tables.get("sampling").print(out);
    for (Result result : results) {
      out.println();
      out.printf(
          Locale.ROOT,
          "Table 3 (%,d keys): hit rate at log-spaced capacities, exact vs sampled%n",
          result.keySpace());
      tables.get("curve-" + result.keySpace()).print(out);
    }
    if (options.opt()) {
      out.println();
      out.println(
          "Table 4: OPT (Belady/MIN) for every capacity in one pass (critical markers, O(log V)"
              + " per lookup), against the exact LRU pass and a naive MIN at one capacity; the"
              + " per-chunk hit rates of LRU and OPT at that capacity");
      tables.get("opt").print(out);
    }
    out.println();
    Machine.footer(out);
    out.printf(Locale.ROOT, "GC time in all: %.1f s%n", Machine.gcSeconds());
    if (options.csv() != null) {
      TextTable.writeCsv(options.csv(), tables, out);
    }
    boolean allMatch = results.stream().allMatch(r -> r.naiveMatches());
    if (!allMatch) {
      out.println("FAILED: the naive LRU's hits differ from the exact curve's");
    }
    boolean optMatch = results.stream().allMatch(r -> r.opt() == null || r.opt().matches());
    if (!optMatch) {
      out.println("FAILED: the naive MIN's hits differ from the OPT curve's");
    }
    allMatch &= optMatch;
    return allMatch ? 0 : 1;
  }

  private Result measure(int keySpace) {
    progress("%,d keys: generating %,d lookups", keySpace, options.lookups());
    long t0 = System.nanoTime();
    ZipfTrace trace =
        ZipfTrace.generate(
            options.lookups(),
            keySpace,
            options.alpha(),
            options.minChunks(),
            options.maxChunks(),
            options.seed());
    double generate = seconds(t0);
    progress("%,d keys: %,d requests generated in %.1f s", keySpace, trace.requests, generate);
    long traceMiB = Machine.usedHeapAfterGcMiB();

    // exact, the curve alone
    Passes exactPasses = new Passes();
    Curve exact = null;
    long analysisHeap = 0;
    for (int rep = 0; rep < options.repeat(); rep++) {
      Machine.resetPeakHeap();
      MrcAnalyzer analyzer = MrcAnalyzer.builder().expectedChunksPerModel(keySpace).build();
      long start = System.nanoTime();
      long cpuStart = cpuNanos();
      trace.feed(analyzer);
      Analysis analysis = analyzer.finish();
      double s = seconds(start);
      double cpu = (cpuNanos() - cpuStart) / 1e9;
      exactPasses.add(s, cpu);
      exact = analysis.overall().curve();
      if (rep == 0) {
        analysisHeap = Machine.peakHeapMiB() - traceMiB;
      }
      progress(
          "%,d keys: exact pass %d: %.2f s wall (%.0f ns/lookup), %.2f s CPU; working set %,d",
          keySpace, rep + 1, s, s * 1e9 / trace.lookups(), cpu, exact.workingSet());
    }

    // exact, with windows
    double windows = Double.NaN;
    if (!options.noWindows()) {
      long[] capacities =
          Arrays.stream(WINDOW_FRACTIONS)
              .mapToLong(f -> Math.max(1, Math.round(f * keySpace)))
              .toArray();
      MrcAnalyzer analyzer =
          MrcAnalyzer.builder()
              .expectedChunksPerModel(keySpace)
              .windows(Windowing.byTime(Duration.ofHours(1)))
              .windowCapacities(capacities)
              .build();
      long start = System.nanoTime();
      trace.feed(analyzer);
      Analysis analysis = analyzer.finish();
      windows = seconds(start);
      progress(
          "%,d keys: exact pass with %d hourly windows at %s: %.2f s",
          keySpace, analysis.overall().windows().size(), Arrays.toString(capacities), windows);
    }

    // naive LRU, one capacity
    long naiveCapacity =
        options.naiveCapacity() > 0 ? options.naiveCapacity() : Math.max(1, keySpace / 10);
    double naive = Double.NaN;
    double naiveCpu = Double.NaN;
    boolean matches = true;
    if (!options.noNaive()) {
      NaiveCheck check = naiveLru(keySpace, trace, naiveCapacity, exact);
      naive = check.seconds();
      naiveCpu = check.cpuSeconds();
      matches = check.matches();
    }

    // sampled
    Machine.usedHeapAfterGcMiB();
    MrcAnalyzer analyzer =
        MrcAnalyzer.builder().sampling(Sampling.atRate(options.sampleRate())).build();
    long start = System.nanoTime();
    long cpuStart = cpuNanos();
    trace.feed(analyzer);
    Curve sampled = analyzer.finish().overall().curve();
    double sampledSeconds = seconds(start);
    double sampledCpu = (cpuNanos() - cpuStart) / 1e9;
    long[] points =
        Curve.logSpaced(options.points(), exact.saturationCapacity(Semantics.PER_CHUNK));
    double[] mae = new double[3];
    double maxError = 0;
    for (long c : points) {
      double chunkError =
          Math.abs(
              sampled.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c)
                  - exact.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c));
      mae[0] += chunkError;
      maxError = Math.max(maxError, chunkError);
      mae[1] +=
          Math.abs(
              sampled.hitRate(Semantics.PER_CHUNK, Weighting.UNITS, c)
                  - exact.hitRate(Semantics.PER_CHUNK, Weighting.UNITS, c));
      mae[2] +=
          Math.abs(
              sampled.hitRate(Semantics.PREFIX, Weighting.UNITS, c)
                  - exact.hitRate(Semantics.PREFIX, Weighting.UNITS, c));
    }
    // The same over capacities the sample can resolve at all: C >= 1 / rate.
    long resolvable = (long) Math.ceil(1 / sampled.sampling().rate());
    long saturation = exact.saturationCapacity(Semantics.PER_CHUNK);
    double maeResolvable = Double.NaN;
    if (saturation > resolvable) {
      long[] upper = Curve.logSpaced(options.points(), saturation / resolvable);
      maeResolvable = 0;
      for (long u : upper) {
        long c = u * resolvable;
        maeResolvable +=
            Math.abs(
                sampled.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c)
                    - exact.hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c));
      }
      maeResolvable /= upper.length;
    }
    progress(
        "%,d keys: sampled pass at rate %s: %.3f s; %,d of %,d lookups sampled; MAE %.4f",
        keySpace,
        sampled.sampling().rate(),
        sampledSeconds,
        sampled.totals().sampledAccesses(),
        sampled.totals().accesses(),
        mae[0] / points.length);
    OptResult opt = options.opt() ? measureOpt(keySpace, trace, naiveCapacity) : null;
    return new Result(
        keySpace,
        trace.lookups(),
        trace.requests,
        generate,
        exactPasses,
        windows,
        analysisHeap,
        naive,
        naiveCpu,
        naiveCapacity,
        matches,
        sampledSeconds,
        sampledCpu,
        sampled.totals().sampledAccesses(),
        sampled.totals().sampledRequests(),
        mae[0] / points.length,
        mae[1] / points.length,
        mae[2] / points.length,
        maxError,
        maeResolvable,
        exact,
        sampled,
        opt);
  }

  /**
   * Whether a simulation at one capacity counted what the one-pass curve says for that capacity:
   * hits and hit units, per chunk and by prefix. The naive passes are there to check the curve.
   */
  private static boolean sameHits(
      ToLongFunction<Semantics> hits,
      ToLongFunction<Semantics> unitHits,
      Curve curve,
      long capacity) {
    for (Semantics semantics : new Semantics[] {Semantics.PER_CHUNK, Semantics.PREFIX}) {
      if (hits.applyAsLong(semantics) != curve.hits(semantics, capacity)
          || unitHits.applyAsLong(semantics) != curve.unitHits(semantics, capacity)) {
        return false;
      }
    }
    return true;
  }

  private OptResult measureOpt(int keySpace, ZipfTrace trace, long capacity) {
    Passes passes = new Passes();
    Curve curve = null;
    for (int rep = 0; rep < options.repeat(); rep++) {
      Machine.usedHeapAfterGcMiB();
      OptAnalyzer analyzer = new OptAnalyzer();
      long start = System.nanoTime();
      long cpuStart = cpuNanos();
      trace.feed(analyzer);
      curve = analyzer.finish().overall();
      double s = seconds(start);
      double cpu = (cpuNanos() - cpuStart) / 1e9;
      passes.add(s, cpu);
      progress(
          "%,d keys: OPT pass %d, every capacity: %.2f s wall (%.0f ns/lookup), %.2f s CPU",
          keySpace, rep + 1, s, s * 1e9 / trace.lookups(), cpu);
    }
    Machine.usedHeapAfterGcMiB(); // the OPT buffers go before the naive pass
    NaiveMin min = new NaiveMin(capacity);
    NaiveCheck check =
        checkNaive(
            "MIN",
            "OPT",
            keySpace,
            capacity,
            curve,
            () -> {
              trace.feed(min);
              min.finish();
            },
            min::hits,
            min::unitHits);
    return new OptResult(
        passes,
        check.seconds(),
        check.cpuSeconds(),
        check.hits(),
        check.prefixHits(),
        check.matches(),
        curve);
  }

  /**
   * The naive LRU at one capacity checked against the exact curve. Its own method so that the LRU's
   * map goes with this frame, before the next pass.
   */
  private NaiveCheck naiveLru(int keySpace, ZipfTrace trace, long capacity, Curve exact) {
    NaiveLru lru = new NaiveLru(capacity);
    return checkNaive(
        "LRU", "exact", keySpace, capacity, exact, () -> trace.feed(lru), lru::hits, lru::unitHits);
  }

  /**
   * Times one naive simulation at one capacity ({@code pass}) and checks its hits against the
   * one-pass {@code curve} at that capacity, with one progress line. The naive LRU (against the
   * exact curve) and the naive MIN (against the OPT curve) are the same check with another
   * simulator, so it is written once; {@code simulator} and {@code curveName} only name them.
   */
  private NaiveCheck checkNaive(
      String simulator,
      String curveName,
      int keySpace,
      long capacity,
      Curve curve,
      Runnable pass,
      ToLongFunction<Semantics> hits,
      ToLongFunction<Semantics> unitHits) {
    long start = System.nanoTime();
    long cpuStart = cpuNanos();
    pass.run();
    double wall = seconds(start);
    double cpu = (cpuNanos() - cpuStart) / 1e9;
    boolean matches = sameHits(hits, unitHits, curve, capacity);
    NaiveCheck check =
        new NaiveCheck(
            wall,
            cpu,
            hits.applyAsLong(Semantics.PER_CHUNK),
            hits.applyAsLong(Semantics.PREFIX),
            matches);
    progress(
        "%,d keys: naive %s at capacity %,d: %.2f s wall, %.2f s CPU; hits per chunk %,d /"
            + " prefix %,d; %s curve at that capacity: %,d / %,d -> %s",
        keySpace,
        simulator,
        capacity,
        wall,
        cpu,
        check.hits(),
        check.prefixHits(),
        curveName,
        curve.hits(Semantics.PER_CHUNK, capacity),
        curve.hits(Semantics.PREFIX, capacity),
        matches ? "identical" : "DIFFERENT");
    return check;
  }

  private TextTable optTable(List<Result> results) {
    TextTable table =
        new TextTable(
            "distinct chunks",
            "lookups",
            "LRU all capacities wall s (median)",
            "LRU CPU s",
            "OPT all capacities wall s (median)",
            "OPT ns/lookup",
            "OPT CPU s",
            "OPT runs (wall s)",
            "naive MIN 1 capacity wall s",
            "naive MIN CPU s",
            "capacity",
            "naive MIN = OPT",
            "LRU / OPT per chunk at capacity");
    for (Result r : results) {
      OptResult o = r.opt();
      long c = r.naiveCapacity();
      table.row(
          thousands(r.keySpace()),
          thousands(r.lookups()),
          f(2, r.exactPasses().wallMedian()),
          f(2, r.exactPasses().cpuMedian()),
          f(2, o.passes().wallMedian()),
          f(0, o.passes().wallMedian() * 1e9 / r.lookups()),
          f(2, o.passes().cpuMedian()),
          o.passes().walls(),
          f(2, o.minSeconds()),
          f(2, o.minCpuSeconds()),
          thousands(c),
          o.matches() ? "yes" : "NO",
          f(4, r.exact().hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c))
              + " / "
              + f(4, o.curve().hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c)));
    }
    return table;
  }

  private TextTable timeTable(List<Result> results) {
    TextTable table =
        new TextTable(
            "distinct chunks",
            "lookups",
            "requests",
            "working set",
            "exact wall s",
            "ns/lookup",
            "exact CPU s",
            "runs (wall s)",
            "+windows wall s",
            "naive 1 capacity wall s",
            "ns/lookup",
            "naive CPU s",
            "naive capacity",
            "naive = exact",
            "naive/exact CPU",
            "sampled wall s",
            "sampled CPU s",
            "peak heap - trace MiB");
    for (Result r : results) {
      table.row(
          thousands(r.keySpace()),
          thousands(r.lookups()),
          thousands(r.requests()),
          thousands(r.exact().workingSet()),
          f(2, r.exactPasses().wallMedian()),
          f(0, r.exactPasses().wallMedian() * 1e9 / r.lookups()),
          f(2, r.exactPasses().cpuMedian()),
          r.exactPasses().walls(),
          f(2, r.windowsSeconds()),
          f(2, r.naiveSeconds()),
          f(0, r.naiveSeconds() * 1e9 / r.lookups()),
          f(2, r.naiveCpuSeconds()),
          thousands(r.naiveCapacity()),
          Double.isNaN(r.naiveSeconds()) ? "-" : r.naiveMatches() ? "yes" : "NO",
          f(2, r.naiveCpuSeconds() / r.exactPasses().cpuMedian()),
          f(3, r.sampledSeconds()),
          f(3, r.sampledCpuSeconds()),
          r.analysisHeapMiB());
    }
    return table;
  }

  private TextTable samplingTable(List<Result> results) {
    TextTable table =
        new TextTable(
            "distinct chunks",
            "rate",
            "sampled lookups",
            "sampled requests",
            "sampled s",
            "MAE per-chunk",
            "max error",
            "MAE per-chunk, C >= 1/rate",
            "MAE per-chunk tokens",
            "MAE prefix tokens",
            "working set est.",
            "exact");
    for (Result r : results) {
      table.row(
          thousands(r.keySpace()),
          f(6, r.sampled().sampling().rate()),
          thousands(r.sampledLookups()),
          thousands(r.sampledRequests()),
          f(3, r.sampledSeconds()),
          f(4, r.maeChunks()),
          f(4, r.maxErrorChunks()),
          f(4, r.maeResolvable()),
          f(4, r.maeUnits()),
          f(4, r.maePrefixUnits()),
          thousands(r.sampled().workingSet()),
          thousands(r.exact().workingSet()));
    }
    return table;
  }

  private TextTable curveTable(Result r) {
    TextTable table =
        new TextTable(
            "capacity (chunks)", "per-chunk exact", "sampled", "prefix tokens exact", "sampled");
    for (long c : Curve.logSpaced(12, r.exact().saturationCapacity(Semantics.PER_CHUNK))) {
      table.row(
          thousands(c),
          f(4, r.exact().hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c)),
          f(4, r.sampled().hitRate(Semantics.PER_CHUNK, Weighting.CHUNKS, c)),
          f(4, r.exact().hitRate(Semantics.PREFIX, Weighting.UNITS, c)),
          f(4, r.sampled().hitRate(Semantics.PREFIX, Weighting.UNITS, c)));
    }
    return table;
  }

  private void progress(String format, Object... args) {
    out.printf(Locale.ROOT, "… " + format + "%n", args);
    out.flush();
  }

  private static long cpuNanos() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  /** A count as the tables print it, with thousands separators. */
  private static String thousands(long value) {
    return String.format(Locale.ROOT, "%,d", value);
  }

  private static String f(int decimals, double value) {
    return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  record Options(
      int lookups,
      int[] keySpaces,
      double alpha,
      int minChunks,
      int maxChunks,
      double sampleRate,
      int points,
      long naiveCapacity,
      boolean noNaive,
      boolean noWindows,
      boolean opt,
      int repeat,
      long seed,
      Path csv) {

    static Options of(CommandLine line) throws UsageException {
      String[] keys = line.string("keys", "1000000,10000000").split(",");
      int[] keySpaces = new int[keys.length];
      for (int k = 0; k < keys.length; k++) {
        keySpaces[k] = (int) Benchmark.atMost("keys", number("keys", keys[k], 1), 300_000_000);
      }
      String[] range = line.string("chunks", "8-64").split("-");
      if (range.length != 2) {
        throw new UsageException("--chunks expects MIN-MAX, got " + line.string("chunks", ""));
      }
      int minChunks = (int) Benchmark.atMost("chunks", number("chunks", range[0], 1), 1_000_000);
      int maxChunks =
          (int) Benchmark.atMost("chunks", number("chunks", range[1], minChunks), 1_000_000);
      return new Options(
          (int)
              Benchmark.atMost(
                  "lookups", line.longValue("lookups", 100_000_000, 1), Integer.MAX_VALUE - 8),
          keySpaces,
          Benchmark.atMost("alpha", line.doubleValue("alpha", 0.9, 0), 10),
          minChunks,
          maxChunks,
          Benchmark.atMost("sample-rate", line.doubleValue("sample-rate", 0.01, 1e-7), 1),
          (int) Benchmark.atMost("points", line.longValue("points", 30, 2), 10_000),
          line.longValue("naive-capacity", 0, 1),
          line.has("no-naive"),
          line.has("no-windows"),
          line.has("opt"),
          (int) Benchmark.atMost("repeat", line.longValue("repeat", 1, 1), 100),
          line.longValue("seed", 20261121, 0),
          line.value("csv").map(Path::of).orElse(null));
    }

    private static long number(String option, String text, long min) throws UsageException {
      long value;
      try {
        value = Long.parseLong(text.strip().replace("_", ""));
      } catch (NumberFormatException e) {
        throw new UsageException("--" + option + " needs whole numbers, got '" + text + "'");
      }
      if (value < min) {
        throw new UsageException("--" + option + " must be at least " + min + ", got " + value);
      }
      return value;
    }
  }
}
