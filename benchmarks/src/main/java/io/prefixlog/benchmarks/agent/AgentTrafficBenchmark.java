package io.prefixlog.benchmarks.agent;

import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Corpora;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.harness.ScratchDirs;
import io.prefixlog.benchmarks.report.TextTable;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.tools.corpus.AgentSessions;
import io.prefixlog.tools.corpus.AgentShape;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Long coding-agent sessions ({@link AgentSessions}) through prefixlog, in two variants: every
 * conversation with its own session header, and none with one, all through one gateway address,
 * model and user agent. Per round (a seed of its own) it prints what the output topics store per
 * turn next to {@code zstd -3 --patch-from} of the previous turn and whole-session {@code zstd -19
 * --long}, the sessions the keys found, and every turn rebuilt from the deltas; then the medians of
 * the per-round ratios against the targets: deltas ≤ 1.1× patch-from, lookups ≤ 0.25× the deltas,
 * the header-less variant ≤ 1.2× the keyed one.
 */
public final class AgentTrafficBenchmark {
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "AgentTrafficBenchmark",
          "Long coding-agent sessions, with and without session headers: the bytes prefixlog's"
              + " topics store per turn next to zstd --patch-from and zstd -19 --long, every turn"
              + " rebuilt (exit 1 if any is not).",
          List.of(
              Option.value("corpora", "DIR", "corpora/ found upwards", "The corpora."),
              Option.value("sessions", "N", "10", "Conversations per round, interleaved."),
              Option.value("turns", "N", "70", "Requests per conversation."),
              Option.value("rounds", "N", "3", "Rounds, each with a seed of its own."),
              Option.value("seed", "S", "20261128", "The first round's seed."),
              Option.value(
                  "warmup-rounds",
                  "N",
                  "2",
                  "Unmeasured rounds through the stream app before the measured ones, each with a"
                      + " seed of its own (below --seed)."),
              Option.flag(
                  "no-stream-app",
                  "Leave out the end-to-end run of the stream app on a broker (its rate, memory"
                      + " and disk bytes)."),
              Option.value(
                  "live-sessions",
                  "N",
                  "0",
                  "Also run a stream app of a 1 GiB heap over N sessions at once, each of"
                      + " --live-turns turns, for its resident memory with that many live"
                      + " sessions (0: not run)."),
              Option.value("live-turns", "T", "4", "Turns of each of the --live-sessions."),
              Option.value(
                  "app-setting",
                  "KEY=VALUE",
                  "none",
                  "A stream-app setting for the end-to-end run (repeatable), such as"
                      + " PREFIXLOG_BASE_CACHE_BYTES=256MiB."),
              Option.flag(
                  "json-events",
                  "Raw events as version 1 JSON (kcat, middlewares), not framed as the proxy"
                      + " writes them."),
              Option.value("csv", "FILE", "none", "Also write the tables as CSV.")));

  static final double DELTA_TARGET = 1.1;
  static final double LOOKUP_TARGET = 0.25;
  static final double NO_HEADER_TARGET = 1.2;
  static final double MEGABYTES_PER_SECOND_TARGET = 100;

  /** The stream app's JVM: a fixed 2 GiB heap, as a container of 3 GiB would give it. */
  static final List<String> APP_JVM_FLAGS =
      List.of("-Xms2g", "-Xmx2g", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError");

  /** The stream app of the live-sessions run: the heap a 1.5 GiB container would give. */
  /** Sessions generated and produced at a time in the live-sessions run. */
  private static final int LIVE_BLOCK = 500;

  /** How far back the live-sessions run's capture times start: more than the run spans. */
  private static final Duration LIVE_SPAN = Duration.ofMinutes(30);

  static final List<String> LIVE_JVM_FLAGS =
      List.of("-Xmx1g", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError");

  /** The stream app's run in one round, with that round's references. */
  private record EndToEnd(int round, StreamAppRun.Result run, References.Sizes refs) {}

  record Options(
      Path corpora,
      int sessions,
      int turns,
      int rounds,
      long seed,
      int warmupRounds,
      boolean streamApp,
      int liveSessions,
      int liveTurns,
      Map<String, String> appSettings,
      boolean jsonEvents,
      Path csv) {
    static Options of(CommandLine line) throws UsageException {
      return new Options(
          Corpora.of(line),
          (int) Benchmark.atMost("sessions", line.longValue("sessions", 10, 1), 10_000),
          (int) Benchmark.atMost("turns", line.longValue("turns", 70, 1), 10_000),
          (int) Benchmark.atMost("rounds", line.longValue("rounds", 3, 1), 100),
          line.longValue("seed", 20261128, Long.MIN_VALUE),
          (int) Benchmark.atMost("warmup-rounds", line.longValue("warmup-rounds", 2, 0), 20),
          !line.has("no-stream-app"),
          (int) Benchmark.atMost("live-sessions", line.longValue("live-sessions", 0, 0), 100_000),
          (int) Benchmark.atMost("live-turns", line.longValue("live-turns", 4, 1), 100),
          AgentTrafficBenchmark.appSettings(line.values("app-setting")),
          line.has("json-events"),
          line.value("csv").map(Path::of).orElse(null));
    }
  }

  private static Map<String, String> appSettings(List<String> pairs) throws UsageException {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String pair : pairs) {
      int equals = pair.indexOf('=');
      if (equals < 1 || !pair.startsWith("PREFIXLOG_")) {
        throw new UsageException("--app-setting must be PREFIXLOG_NAME=VALUE, got " + pair);
      }
      settings.put(pair.substring(0, equals), pair.substring(equals + 1));
    }
    return settings;
  }

  /** One variant's figures in one round. */
  private record Figures(
      int round, AgentEvents.Variant variant, DriverRun.Result result, References.Sizes refs) {
    double turns() {
      return result.events();
    }

    double deltaPerTurn() {
      return result.deltaBytes() / turns();
    }

    double lookupPerTurn() {
      return result.lookupBytes() / turns();
    }

    double patchFromPerTurn() {
      return refs.patchFrom() / turns();
    }

    double wholeSessionPerTurn() {
      return refs.wholeSession() / turns();
    }

    double deltaRatio() {
      return result.deltaBytes() / (double) refs.patchFrom();
    }

    double lookupRatio() {
      return result.lookupBytes() / (double) result.deltaBytes();
    }

    long mismatches() {
      return result.rebuild().counts().failures(false);
    }
  }

  private final Options options;
  private final PrintStream out;

  private AgentTrafficBenchmark(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(
        args, Options::of, options -> new AgentTrafficBenchmark(options, System.out).run());
  }

  private int run() throws Exception {
    out.println(BENCHMARK.title());
    Machine.header(out, TurnEncoder.class);
    AgentShape shape =
        AgentShape.DEFAULT.withSize(options.sessions(), options.turns()).withSeed(options.seed());
    out.printf(
        Locale.ROOT,
        "shape: %d interleaved sessions x %d turns; tool results %,d-%,d B; %.0f %% of results"
            + " show an earlier file again, %.0f %% of edits quote %d characters; a compaction"
            + " every %d turns keeps the newest %d results; %d rounds from seed %d%n",
        shape.sessions(),
        shape.turns(),
        shape.minToolResultBytes(),
        shape.maxToolResultBytes(),
        shape.reshowShare() * 100,
        shape.quoteShare() * 100,
        shape.quoteChars(),
        shape.compactEvery(),
        shape.keepRecentResults(),
        options.rounds(),
        options.seed());
    out.println("variants:");
    for (AgentEvents.Variant variant : AgentEvents.Variant.values()) {
      out.println("  " + variant.label + ": " + variant.description);
    }
    out.println();
    out.flush();

    List<Figures> all = new ArrayList<>();
    List<EndToEnd> endToEnd = new ArrayList<>();
    // Capture times of now: the topics' time retention would delete older records under the run.
    long startMs = System.currentTimeMillis() / 1000 * 1000;
    Path stateRoot = Files.createTempDirectory("agent-traffic");
    StreamAppRun app =
        options.streamApp()
            ? new StreamAppRun(stateRoot.resolve("e2e"), options.appSettings(), APP_JVM_FLAGS)
            : null;
    if (app != null) {
      warmUp(app, shape, startMs);
    }
    for (int round = 1; round <= options.rounds(); round++) {
      AgentSessions generator =
          AgentSessions.fromCorpora(options.corpora(), shape.withSeed(options.seed() + round - 1));
      List<AgentSessions.AgentRequest> requests = generator.requests();
      long bodyBytes = requests.stream().mapToLong(r -> r.body().length).sum();
      int largest = requests.stream().mapToInt(r -> r.body().length).max().orElse(0);
      References.Sizes refs = References.of(requests);
      out.printf(
          Locale.ROOT,
          "round %d: %,d turns, %.1f MB of bodies, largest %,d B%n",
          round,
          requests.size(),
          bodyBytes / 1e6,
          largest);
      for (AgentEvents.Variant variant : AgentEvents.Variant.values()) {
        List<AgentEvents.Event> events =
            new AgentEvents(!options.jsonEvents())
                .of(requests, variant, options.seed() + round, startMs);
        DriverRun.Result result =
            DriverRun.run(events, Map.of(), stateRoot.resolve("r" + round + "-" + variant));
        all.add(new Figures(round, variant, result, refs));
        out.printf(
            Locale.ROOT,
            "  %-9s: %d session keys (%d holding several conversations), %d keyframes %s, deltas"
                + " %,.0f B/turn, lookups %,.0f B/turn, %.1f MB/s in the driver%n",
            variant.label,
            result.sessionKeys(),
            result.mixedKeys(),
            result.keyframes(),
            result.keyframeReasons(),
            result.deltaBytes() / (double) result.events(),
            result.lookupBytes() / (double) result.events(),
            bodyBytes / 1e6 / (result.processNanos() / 1e9));
        if (app != null && variant == AgentEvents.Variant.KEYED) {
          StreamAppRun.Result run = app.round(events);
          endToEnd.add(new EndToEnd(round, run, refs));
          out.printf(
              Locale.ROOT,
              "  stream app: %.1f MB/s of bodies, %.1f MB per stream-thread CPU second (JIT %.1f"
                  + " CPU s, GC %.1f CPU ms/MB), peak RSS %,d MiB, on disk: deltas %,.0f B/turn,"
                  + " lookups %,.0f B/turn%n",
              run.steadyMegabytesPerSecond(),
              run.streamThreadMegabytesPerCpuSecond(),
              run.jitCpuSeconds(),
              run.gcCpuMillisPerMegabyte(),
              run.peakRssMiB(),
              run.deltaDiskBytes() / (double) run.turns(),
              run.lookupDiskBytes() / (double) run.turns());
        }
      }
      out.flush();
    }
    if (app != null) {
      app.close();
    }
    LiveResult live = null;
    if (options.liveSessions() > 0) {
      live = liveSessions(shape, stateRoot.resolve("live"));
    }
    ScratchDirs.deleteRecursively(stateRoot);
    out.println();

    TextTable table = bytesTable(all);
    table.print(out);
    out.println(
        "   deltas, lookups = the records of session.deltas and chunk.lookups as the real topology"
            + " writes them (TopologyTestDriver), keys and values, per partition in produce order,"
            + " in batches of at most 64 KiB compressed at the zstd level the app has the broker"
            + " store the topic at (deltas 9, lookups 3; record framing left out), per turn;"
            + " patch-from = zstd -3 of each body with the previous body of its conversation as"
            + " raw-content dictionary (turn 1: plain zstd -3); zstd -19 --long = each"
            + " conversation's bodies concatenated, level 19, 128 MiB window; mismatches = turns"
            + " not rebuilt byte for byte from the deltas (must be 0).");
    out.println();
    TextTable ratios = ratioTable(all);
    ratios.print(out);
    out.println(
        "   medians [ranges] of the per-round ratios. Targets: deltas / patch-from <= "
            + DELTA_TARGET
            + ", lookups / deltas <= "
            + LOOKUP_TARGET
            + ", no header / keyed (deltas) <= "
            + NO_HEADER_TARGET
            + ".");
    TextTable streamApp = null;
    if (!endToEnd.isEmpty()) {
      out.println();
      streamApp = endToEndTable(endToEnd);
      streamApp.print(out);
      out.println(
          "   the stream app in a JVM of its own ("
              + String.join(" ", APP_JVM_FLAGS)
              + "), one stream thread, defaults otherwise, on a broker on this machine, fed the"
              + " keyed variant's events as the capture proxy produces them (framed unless"
              + " --json-events, lz4), after "
              + options.warmupRounds()
              + " unmeasured rounds; MB/s = bodies taken in from its first turn to its last;"
              + " per CPU s = the same bodies over the stream thread's CPU time in that window"
              + " (the thread found by its Java name, nanoseconds from /proc; what one stream"
              + " thread sustains on a core of its own); JIT CPU s = the app's compiler threads"
              + " in the window (near 0 once warm); GC CPU ms/MB = its collector threads, per MB"
              + " of bodies; RSS = VmHWM; on disk = the topics' log"
              + " segments on the broker, per turn; rebuilt from the deltas topic, read committed."
              + " Target: >= "
              + MEGABYTES_PER_SECOND_TARGET
              + " MB/s per stream thread.");
    }
    if (live != null) {
      out.println();
      out.printf(
          Locale.ROOT,
          "Live sessions: %,d sessions of %d turns (%,d turns, %.1f MB of bodies), all live at the"
              + " end, a stream app of %s and the memory settings' defaults: %.1f MB/s of bodies"
              + " (median of the blocks), peak RSS %,d MiB, every turn rebuilt: %s%n",
          options.liveSessions(),
          options.liveTurns(),
          live.turns(),
          live.bodyBytes() / 1e6,
          String.join(" ", LIVE_JVM_FLAGS),
          live.megabytesPerSecond(),
          live.peakRssMiB(),
          live.failures() == 0 ? "yes" : "NO");
    }
    Machine.footer(out);
    if (options.csv() != null) {
      Map<String, TextTable> tables = new LinkedHashMap<>();
      tables.put("bytes", table);
      tables.put("ratios", ratios);
      if (streamApp != null) {
        tables.put("stream-app", streamApp);
      }
      TextTable.writeCsv(options.csv(), tables, out);
    }
    long mismatches =
        all.stream().mapToLong(Figures::mismatches).sum()
            + endToEnd.stream().mapToLong(e -> e.run().rebuild().counts().failures(false)).sum()
            + (live == null ? 0 : live.failures());
    if (mismatches > 0) {
      out.println("FAILED: " + mismatches + " turns did not rebuild");
      return 1;
    }
    return 0;
  }

  /**
   * Unmeasured rounds through the app, so that the measured ones find its JIT done with the hot
   * code, as at line rate: after one round of 700 turns its compilers were still busy (seconds of
   * CPU in the next round's window) and the stream thread's rate still rising.
   */
  private void warmUp(StreamAppRun app, AgentShape shape, long startMs) throws Exception {
    for (int w = 1; w <= options.warmupRounds(); w++) {
      long seed = options.seed() - w;
      AgentSessions warmUp = AgentSessions.fromCorpora(options.corpora(), shape.withSeed(seed));
      StreamAppRun.Result warm =
          app.round(
              new AgentEvents(!options.jsonEvents())
                  .of(warmUp.requests(), AgentEvents.Variant.KEYED, seed, startMs));
      out.printf(
          Locale.ROOT,
          "stream app warm-up round %d: %,d turns, %.1f MB/s of bodies, %.1f MB per stream-thread"
              + " CPU second, JIT %.1f CPU s%n",
          w,
          warm.turns(),
          warm.steadyMegabytesPerSecond(),
          warm.streamThreadMegabytesPerCpuSecond(),
          warm.jitCpuSeconds());
    }
  }

  private static TextTable bytesTable(List<Figures> all) {
    TextTable table =
        new TextTable(
            "round",
            "variant",
            "turns",
            "session keys",
            "keyframes",
            "deltas B/turn",
            "lookups B/turn",
            "patch-from B/turn",
            "zstd -19 --long B/turn",
            "deltas/pf",
            "lookups/deltas",
            "rebuilt",
            "mismatches");
    for (Figures f : all) {
      table.row(
          f.round(),
          f.variant().label,
          (long) f.turns(),
          f.result().sessionKeys(),
          f.result().keyframes(),
          bytes(f.deltaPerTurn()),
          bytes(f.lookupPerTurn()),
          bytes(f.patchFromPerTurn()),
          bytes(f.wholeSessionPerTurn()),
          ratio(f.deltaRatio()),
          ratio(f.lookupRatio()),
          f.result().rebuild().counts().rebuiltOk(),
          f.mismatches());
    }
    return table;
  }

  private TextTable ratioTable(List<Figures> all) {
    Map<AgentEvents.Variant, List<Figures>> byVariant = new EnumMap<>(AgentEvents.Variant.class);
    for (Figures f : all) {
      byVariant.computeIfAbsent(f.variant(), k -> new ArrayList<>()).add(f);
    }
    TextTable table =
        new TextTable(
            "variant",
            "deltas B/turn",
            "patch-from B/turn",
            "zstd -19 --long B/turn",
            "deltas / patch-from",
            "lookups B/turn",
            "lookups / deltas",
            "vs keyed (deltas)");
    List<Figures> keyed = byVariant.get(AgentEvents.Variant.KEYED);
    for (Map.Entry<AgentEvents.Variant, List<Figures>> entry : byVariant.entrySet()) {
      List<Figures> rounds = entry.getValue();
      double[] vsKeyed = new double[rounds.size()];
      for (int i = 0; i < rounds.size(); i++) {
        vsKeyed[i] = rounds.get(i).deltaPerTurn() / keyed.get(i).deltaPerTurn();
      }
      table.row(
          entry.getKey().label,
          bytes(median(rounds, Figures::deltaPerTurn)),
          bytes(median(rounds, Figures::patchFromPerTurn)),
          bytes(median(rounds, Figures::wholeSessionPerTurn)),
          withRange(rounds.stream().mapToDouble(Figures::deltaRatio).toArray()),
          bytes(median(rounds, Figures::lookupPerTurn)),
          withRange(rounds.stream().mapToDouble(Figures::lookupRatio).toArray()),
          withRange(vsKeyed));
    }
    return table;
  }

  /**
   * {@code --live-sessions} sessions of {@code --live-turns} turns through a stream app of its own
   * with a 1 GiB heap and every memory setting at its default: what its resident memory comes to
   * with that many live sessions at once.
   *
   * <p>The sessions are generated and produced {@value #LIVE_BLOCK} at a time (each block's turns
   * interleaved), so that this JVM never holds more than one block's bodies: 10,000 sessions of 4
   * turns are ~4.7 GB of them. Every session stays live to the end all the same: the capture times
   * are a few ms apart ({@link AgentEvents#dense()}), so the whole run spans minutes of stream
   * time, well within the session TTL, and no base is evicted for age.
   */
  private LiveResult liveSessions(AgentShape shape, Path dir) throws Exception {
    int sessions = options.liveSessions();
    int turns = options.liveTurns();
    // Capture times in the recent past: within the topics' retention, never ahead of the clock.
    long clockMs = System.currentTimeMillis() - LIVE_SPAN.toMillis();
    AgentEvents eventsOf = new AgentEvents(!options.jsonEvents()).dense();
    List<Double> rates = new ArrayList<>();
    long turnsIn = 0;
    long bodyBytes = 0;
    long failures = 0;
    StreamAppRun.Result last = null;
    try (StreamAppRun run = new StreamAppRun(dir, options.appSettings(), LIVE_JVM_FLAGS)) {
      for (int first = 0; first < sessions; first += LIVE_BLOCK) {
        int size = Math.min(LIVE_BLOCK, sessions - first);
        long seed = options.seed() + 1000 + first;
        List<AgentSessions.AgentRequest> requests =
            AgentSessions.fromCorpora(options.corpora(), shape.withSize(size, turns).withSeed(seed))
                .requests();
        List<AgentEvents.Event> events =
            eventsOf.of(requests, AgentEvents.Variant.KEYED, seed, clockMs);
        clockMs = events.get(events.size() - 1).timestamp() + 1;
        bodyBytes += requests.stream().mapToLong(r -> r.body().length).sum();
        last = run.round(events);
        turnsIn += last.turns();
        failures += last.rebuild().counts().failures(false);
        rates.add(last.steadyMegabytesPerSecond());
        out.printf(
            Locale.ROOT,
            "… live sessions: %,d of %,d in, %.1f MB of bodies so far, peak RSS %,d MiB%n",
            first + size,
            sessions,
            bodyBytes / 1e6,
            last.peakRssMiB());
      }
    }
    return new LiveResult(turnsIn, bodyBytes, Medians.of(rates), last.peakRssMiB(), failures);
  }

  /** The live-sessions run: its turns, bodies, median MB/s of its blocks and peak RSS. */
  private record LiveResult(
      long turns, long bodyBytes, double megabytesPerSecond, long peakRssMiB, long failures) {}

  private static TextTable endToEndTable(List<EndToEnd> runs) {
    TextTable table =
        new TextTable(
            "round",
            "turns",
            "MB/s of bodies",
            "MB per stream-thread CPU s",
            "JIT CPU s",
            "GC CPU ms/MB",
            "peak RSS MiB",
            "deltas on disk B/turn",
            "lookups on disk B/turn",
            "deltas on disk / patch-from",
            "rebuilt",
            "mismatches");
    for (EndToEnd e : runs) {
      StreamAppRun.Result r = e.run();
      table.row(
          e.round(),
          r.turns(),
          String.format(Locale.ROOT, "%.1f", r.steadyMegabytesPerSecond()),
          String.format(Locale.ROOT, "%.1f", r.streamThreadMegabytesPerCpuSecond()),
          String.format(Locale.ROOT, "%.1f", r.jitCpuSeconds()),
          String.format(Locale.ROOT, "%.1f", r.gcCpuMillisPerMegabyte()),
          r.peakRssMiB(),
          bytes(r.deltaDiskBytes() / (double) r.turns()),
          bytes(r.lookupDiskBytes() / (double) r.turns()),
          ratio(r.deltaDiskBytes() / (double) e.refs().patchFrom()),
          r.rebuild().counts().rebuiltOk(),
          r.rebuild().counts().failures(false));
    }
    table.separator();
    table.row(
        "median",
        "",
        String.format(
            Locale.ROOT,
            "%.1f",
            Medians.of(
                runs.stream().mapToDouble(e -> e.run().steadyMegabytesPerSecond()).toArray())),
        withRange(
            runs.stream().mapToDouble(e -> e.run().streamThreadMegabytesPerCpuSecond()).toArray(),
            "%.1f"),
        String.format(
            Locale.ROOT,
            "%.1f",
            Medians.of(runs.stream().mapToDouble(e -> e.run().jitCpuSeconds()).toArray())),
        String.format(
            Locale.ROOT,
            "%.1f",
            Medians.of(runs.stream().mapToDouble(e -> e.run().gcCpuMillisPerMegabyte()).toArray())),
        (long) Medians.of(runs.stream().mapToDouble(e -> e.run().peakRssMiB()).toArray()),
        "",
        "",
        withRange(
            runs.stream()
                .mapToDouble(e -> e.run().deltaDiskBytes() / (double) e.refs().patchFrom())
                .toArray()),
        "",
        "");
    return table;
  }

  private static double median(List<Figures> rounds, ToDoubleFunction<Figures> figure) {
    return Medians.of(rounds.stream().mapToDouble(figure).toArray());
  }

  private static String withRange(double[] values) {
    return withRange(values, "%.2f");
  }

  private static String withRange(double[] values, String format) {
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    for (double v : values) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    return String.format(
        Locale.ROOT, format + " [" + format + "-" + format + "]", Medians.of(values), min, max);
  }

  private static String bytes(double value) {
    return String.format(Locale.ROOT, "%,.0f", value);
  }

  private static String ratio(double value) {
    return String.format(Locale.ROOT, "%.2f", value);
  }
}
