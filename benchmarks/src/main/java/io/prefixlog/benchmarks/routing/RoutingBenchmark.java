package io.prefixlog.benchmarks.routing;

import io.prefixlog.analysis.mrc.Analysis;
import io.prefixlog.analysis.mrc.MrcAnalyzer;
import io.prefixlog.analysis.mrc.NaiveLru;
import io.prefixlog.analysis.mrc.Semantics;
import io.prefixlog.analysis.mrc.Weighting;
import io.prefixlog.analysis.routing.FleetResult;
import io.prefixlog.analysis.routing.FleetSimulator;
import io.prefixlog.analysis.routing.RoutingPolicy;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.report.TextTable;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The routing target: the routing what-if at ≥ 1 M requests per minute for 8 replicas. On one
 * in-memory {@link SessionTrace}, in one JVM and one thread, it times a replay under every {@link
 * RoutingPolicy} ({@link FleetSimulator}, what {@code analyze --replicas} runs) next to two
 * references over the same lookups: the one-pass LRU curve of a single cache ({@link MrcAnalyzer},
 * what {@code analyze} runs) and a {@link NaiveLru} of the fleet's total capacity. Each figure is
 * the median of {@code --repeat} runs.
 */
public final class RoutingBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "RoutingBenchmark",
          "Routing what-if requests per minute per policy over N LRU replicas, next to the"
              + " single-cache LRU passes over the same lookups.",
          List.of(
              Option.value("requests", "N", "1000000", "Requests in the trace."),
              Option.value("replicas", "N", "8", "Replicas."),
              Option.value("capacity", "C", "20000", "Chunks per replica."),
              Option.value("sessions", "S", "20000", "Sessions."),
              Option.value("max-chunks", "M", "64", "A conversation restarts past this length."),
              Option.value("load-window-ms", "T", "10000", "The load window."),
              Option.value("repeat", "R", "3", "Runs per figure (median)."),
              Option.value("seed", "S", "20261121", "Trace seed."),
              Option.value("csv", "FILE", "none", "Also write the table as CSV.")));

  record Options(
      int requests,
      int replicas,
      long capacity,
      int sessions,
      int maxChunks,
      long loadWindowMs,
      int repeat,
      long seed,
      Path csv) {
    static Options of(CommandLine line) throws UsageException {
      return new Options(
          (int) Benchmark.atMost("requests", line.longValue("requests", 1_000_000, 1), 50_000_000),
          (int) Benchmark.atMost("replicas", line.longValue("replicas", 8, 1), 4096),
          line.longValue("capacity", 20_000, 0),
          (int) Benchmark.atMost("sessions", line.longValue("sessions", 20_000, 1), 10_000_000),
          (int) Benchmark.atMost("max-chunks", line.longValue("max-chunks", 64, 1), 100_000),
          line.longValue("load-window-ms", 10_000, 0),
          (int) line.longValue("repeat", 3, 1),
          line.longValue("seed", 20261121, Long.MIN_VALUE),
          line.value("csv").map(Path::of).orElse(null));
    }
  }

  private record Row(String what, double seconds, double chunkHitRate, FleetResult fleet) {}

  private final Options options;
  private final PrintStream out;

  private RoutingBenchmark(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Options::of, options -> new RoutingBenchmark(options, System.out).run());
  }

  private int run() {
    out.println(BENCHMARK.title());
    Machine.header(out, FleetSimulator.class);
    long start = System.nanoTime();
    SessionTrace trace =
        SessionTrace.generate(
            options.requests(), options.sessions(), options.maxChunks(), options.seed());
    out.printf(
        Locale.ROOT,
        "workload: %,d requests (%,d chunk lookups, %.1f per request, %,d distinct chunks) of %,d"
            + " sessions over %d shared system prompts of %d chunks, +1-4 chunks a turn, restart"
            + " past %d chunks; 10 ms apart; seed %d; generated in %.1f s%n",
        trace.requests(),
        trace.lookups,
        (double) trace.lookups / trace.requests(),
        trace.distinctKeys,
        options.sessions(),
        SessionTrace.SYSTEM_PROMPTS,
        SessionTrace.SYSTEM_CHUNKS,
        options.maxChunks(),
        options.seed(),
        (System.nanoTime() - start) / 1e9);
    out.printf(
        Locale.ROOT,
        "fleet: %d replicas x %,d chunks, load window %,d ms; %d runs per figure (median); one"
            + " thread; started %s%n%n",
        options.replicas(),
        options.capacity(),
        options.loadWindowMs(),
        options.repeat(),
        Instant.now());
    out.flush();

    List<Row> rows = new ArrayList<>();
    rows.add(
        measure(
            "reference: one-pass LRU curve, 1 cache (analyze)",
            () -> {
              MrcAnalyzer analyzer = MrcAnalyzer.builder().build();
              feed(trace, analyzer);
              Analysis analysis = analyzer.finish();
              return new Row(
                  "",
                  0,
                  analysis
                      .overall()
                      .curve()
                      .hitRate(
                          Semantics.PREFIX,
                          Weighting.CHUNKS,
                          options.capacity() * options.replicas()),
                  null);
            }));
    rows.add(
        measure(
            "reference: NaiveLru of N x C chunks",
            () -> {
              NaiveLru lru = new NaiveLru(options.capacity() * options.replicas());
              for (int r = 0; r < trace.requests(); r++) {
                lru.accept(
                    trace.conversation[r],
                    0,
                    trace.length[r],
                    SessionTrace.CHUNK_TOKENS,
                    trace.seqLen(r));
              }
              return new Row("", 0, lru.hitRate(Semantics.PREFIX, Weighting.CHUNKS), null);
            }));
    for (RoutingPolicy policy : RoutingPolicy.values()) {
      rows.add(
          measure(
              policy.wireName(),
              () -> {
                FleetSimulator fleet =
                    new FleetSimulator(
                        policy,
                        options.replicas(),
                        options.capacity(),
                        options.loadWindowMs(),
                        options.seed());
                for (int r = 0; r < trace.requests(); r++) {
                  fleet.accept(
                      trace.timestampMs(r),
                      trace.session[r],
                      trace.conversation[r],
                      0,
                      trace.length[r],
                      SessionTrace.CHUNK_TOKENS,
                      trace.seqLen(r));
                }
                FleetResult result = fleet.result();
                return new Row("", 0, result.total().chunkHitRate(), result);
              }));
    }

    TextTable table =
        new TextTable(
            "what",
            "seconds",
            "requests/min",
            "M lookups/s",
            "prefix-chunk hit",
            "requests max/mean",
            "chunks max/mean");
    for (Row row : rows) {
      table.row(
          row.what(),
          String.format(Locale.ROOT, "%.2f", row.seconds()),
          String.format(Locale.ROOT, "%,.0f", trace.requests() * 60 / row.seconds()),
          String.format(Locale.ROOT, "%.1f", trace.lookups / row.seconds() / 1e6),
          String.format(Locale.ROOT, "%.1f%%", 100 * row.chunkHitRate()),
          row.fleet() == null
              ? "-"
              : String.format(Locale.ROOT, "%.2f", row.fleet().requestImbalance()),
          row.fleet() == null
              ? "-"
              : String.format(Locale.ROOT, "%.2f", row.fleet().chunkImbalance()));
    }
    out.println();
    out.println(
        "Table 1: one replay of the whole in-memory trace (wall clock, median); the references"
            + " are a single cache, the routing rows N replicas");
    table.print(out);
    out.println();
    Machine.footer(out);
    out.printf(Locale.ROOT, "GC time in all: %.1f s%n", Machine.gcSeconds());
    if (options.csv() != null) {
      Map<String, TextTable> tables = new LinkedHashMap<>();
      tables.put("routing", table);
      TextTable.writeCsv(options.csv(), tables, out);
    }
    return 0;
  }

  private static void feed(SessionTrace trace, MrcAnalyzer analyzer) {
    for (int r = 0; r < trace.requests(); r++) {
      analyzer.accept(
          trace.timestampMs(r),
          "bench-model",
          trace.conversation[r],
          0,
          trace.length[r],
          SessionTrace.CHUNK_TOKENS,
          trace.seqLen(r),
          -1,
          -1);
    }
  }

  private interface Pass {
    Row run();
  }

  private Row measure(String what, Pass pass) {
    List<Double> seconds = new ArrayList<>();
    Row last = null;
    for (int i = 0; i < options.repeat(); i++) {
      long start = System.nanoTime();
      last = pass.run();
      seconds.add((System.nanoTime() - start) / 1e9);
    }
    double median = Medians.of(seconds);
    System.err.printf(Locale.ROOT, "RoutingBenchmark: %s: %.2f s%n", what, median);
    return new Row(what, median, last.chunkHitRate(), last.fleet());
  }
}
