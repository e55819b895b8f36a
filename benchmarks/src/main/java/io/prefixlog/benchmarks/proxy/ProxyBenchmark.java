package io.prefixlog.benchmarks.proxy;

import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.report.TextTable;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.embedded.Ports;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The capture-proxy benchmark (docs/design.md#performance-targets): wrk with 10 keep-alive
 * connections posting a 20 KB chat body to an upstream that answers after 50 ms — direct, through
 * Debian's nginx tuned as a reverse proxy ({@link Nginx}), and through prefixlog's {@code
 * CaptureProxy} with capture on and a real Kafka broker taking the events. Rounds interleave the
 * three (the order rotates every round); the table shows medians over rounds of per-round figures:
 * added latency and throughput against the same round's direct run, and the proxy process's CPU
 * time per request ({@code /proc/<pid>/stat} utime+stime deltas over the run; the proxy is a child
 * JVM, nginx its master and worker).
 *
 * <p>Targets: ≤ 0.5 ms added p50, ≤ 1 ms added p99, ≥ 99 % of direct throughput.
 *
 * <p>Usage: {@code ProxyBenchmark [--rounds 3] [--seconds 10] [--burst 60] [--burst-connections 64]
 * [--warmup 15] [--connections 10] [--delay-ms 50] [--body-bytes 20480] [--targets
 * direct,nginx,prefixlog] [--variants name=flags;…] [--cold-start [--cold-rounds 5] [--window 60]
 * [--interval 10]]}; {@code --cold-start} first measures the window after fresh starts ({@link
 * ColdStart}), then the warm rounds, and prints both regimes side by side. Variants are proxies
 * with more JVM flags, measured in both regimes.
 */
public final class ProxyBenchmark {
  private static final Duration PIECE = Duration.ofSeconds(5);

  private ProxyBenchmark() {}

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Settings::of, settings -> run(settings, System.out));
  }

  /**
   * One system under test: where wrk sends, and how much CPU it has used so far; {@code jvmLog}: a
   * proxy JVM's pause log ({@link JvmPauses}), or null.
   */
  private record Target(
      String name,
      String url,
      LongSupplier cpuNanos,
      Supplier<Map<String, Long>> threads,
      LongSupplier loopWaitNanos,
      Path jvmLog) {
    Target(
        String name,
        String url,
        LongSupplier cpuNanos,
        Supplier<Map<String, Long>> threads,
        LongSupplier loopWaitNanos) {
      this(name, url, cpuNanos, threads, loopWaitNanos, null);
    }

    /** A capturing proxy on this machine: every such target is measured by the same probes. */
    static Target of(String name, PrefixlogProxy proxy, String path) {
      return new Target(
          name,
          "http://127.0.0.1:" + proxy.port() + path,
          proxy::cpuNanos,
          proxy::threadGroupNanos,
          proxy::loopWaitNanos,
          proxy.jvmLog());
    }
  }

  /**
   * One wrk run of one target, with the target's CPU over it, the part of it its JIT compiler
   * threads used (0 when not known), and when it ran (epoch ms).
   */
  private record Run(Wrk.Result wrk, long cpuNanos, long jitNanos, long fromMillis, long toMillis) {
    double cpuMicrosPerRequest() {
      return cpuNanos < 0 ? Double.NaN : cpuNanos / 1e3 / wrk.requests();
    }

    /** CPU per request without the JIT's: what the target's own code costs once compiled. */
    double cpuMicrosPerRequestWithoutJit() {
      return cpuNanos < 0 ? Double.NaN : (cpuNanos - jitNanos) / 1e3 / wrk.requests();
    }
  }

  private static final Benchmark BENCHMARK =
      new Benchmark(
          "ProxyBenchmark",
          "The capture proxy against direct requests and a tuned nginx, with wrk, interleaved rounds:"
              + " added latency (p50/p99) and CPU per request, medians of the rounds.",
          List.of(
              Option.value("rounds", "N", "3", "Measured rounds, each target once per round."),
              Option.value("seconds", "S", "10", "Length of one measured run."),
              Option.value("warmup", "S", "15", "Warm-up of each target before the rounds."),
              Option.value("burst", "S", "60", "Burst warm-up at --burst-connections first."),
              Option.value("burst-connections", "N", "64", "Connections of the burst warm-up."),
              Option.value("connections", "N", "10", "wrk connections in the measured runs."),
              Option.value("delay-ms", "MS", "50", "The upstream's answer delay."),
              Option.value("body-bytes", "N", "20480", "Size of the chat POST body."),
              Option.value(
                  "targets",
                  "LIST",
                  "direct,nginx,prefixlog,prefixlog-nohist",
                  "Targets measured, comma separated; also netty-floor and vertx-floor (warm and"
                      + " cold): JVM proxies without capture, on Netty alone and on Vert.x,"
                      + " as references for CPU per request."),
              Option.flag(
                  "cold-start",
                  "First the cold-start rounds: every proxy started anew, measured from the moment"
                      + " it listens (then the warm rounds, unless --rounds 0)."),
              Option.value("cold-rounds", "N", "5", "Cold-start rounds (fresh processes each)."),
              Option.value("window", "S", "60", "Cold start: the window measured after a start."),
              Option.value("interval", "S", "10", "Cold start: the window's pieces."),
              Option.value(
                  "variants",
                  "LIST",
                  "",
                  "More proxy JVMs, name=flags;name=flags (target prefixlog-<name>), in the"
                      + " cold-start and the warm rounds, e.g. nowarmup=-Dprefixlog.bench.warmupMs=0.")));

  /** The command line's values. */
  private record Settings(
      int rounds,
      Duration seconds,
      Duration warmup,
      Duration burst,
      int burstConnections,
      int connections,
      int delayMs,
      int bodyBytes,
      List<String> targets,
      List<ColdStart.Variant> variants,
      ColdStart.Settings cold) {
    static Settings of(CommandLine line) throws UsageException {
      List<String> targets =
          Arrays.asList(
              line.string("targets", "direct,nginx,prefixlog,prefixlog-nohist").split(","));
      List<ColdStart.Variant> variants;
      try {
        variants = ColdStart.Variant.parse(line.string("variants", ""));
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage());
      }
      ColdStart.Settings cold = null;
      if (line.has("cold-start")) {
        cold =
            new ColdStart.Settings(
                (int) line.longValue("cold-rounds", 5, 1),
                Duration.ofSeconds(line.longValue("window", 60, 1)),
                Duration.ofSeconds(line.longValue("interval", 10, 1)),
                targets,
                variants);
      }
      return new Settings(
          (int) line.longValue("rounds", 3, line.has("cold-start") ? 0 : 1),
          Duration.ofSeconds(line.longValue("seconds", 10, 1)),
          Duration.ofSeconds(line.longValue("warmup", 15, 0)),
          Duration.ofSeconds(line.longValue("burst", 60, 0)),
          (int) line.longValue("burst-connections", 64, 1),
          (int) line.longValue("connections", 10, 1),
          (int) line.longValue("delay-ms", 50, 0),
          (int) line.longValue("body-bytes", 20480, 1),
          targets,
          variants,
          cold);
    }
  }

  private static int run(Settings settings, PrintStream out) throws Exception {
    int rounds = settings.rounds();
    Duration seconds = settings.seconds();
    Duration warmup = settings.warmup();
    Duration burst = settings.burst();
    int burstConnections = settings.burstConnections();
    int connections = settings.connections();
    int delayMs = settings.delayMs();
    int bodyBytes = settings.bodyBytes();
    for (String tool : List.of("nginx", "wrk")) {
      if (!onPath(tool)) {
        out.println("ProxyBenchmark: " + tool + " not found; run scripts/install-bench-deps.sh");
        return 2;
      }
    }

    Path dir = Files.createTempDirectory("prefixlog-proxy-bench");
    out.printf(
        Locale.ROOT,
        "proxy benchmark: wrk -t2 -c%d, %d-byte chat POST, upstream delay %d ms, %d rounds of %d s"
            + " (warm-up each: %d s at c=%d, then %d s, in 5 s runs), work dir %s%n",
        connections,
        bodyBytes,
        delayMs,
        rounds,
        seconds.toSeconds(),
        burst.toSeconds(),
        burstConnections,
        warmup.toSeconds(),
        dir);
    Machine.header(out);

    DemoUpstream.Options upstreamOptions =
        DemoUpstream.Options.defaults()
            .withDelay(Duration.ofMillis(delayMs))
            .withResponseBytes(700);
    Wrk wrk = new Wrk(dir, ChatBody.of(bodyBytes), 2, connections);
    Wrk burstWrk =
        new Wrk(
            Files.createDirectories(dir.resolve("burst")),
            ChatBody.of(bodyBytes),
            2,
            burstConnections);
    Map<String, ColdStart.Summary> cold = null;
    Map<String, ColdStart.Summary> warm = null;
    try (KafkaBroker broker =
            KafkaBroker.start(
                KafkaBroker.Options.defaults(dir.resolve("kafka")).withBrokerPort(0));
        DemoUpstream upstream = DemoUpstream.start(upstreamOptions)) {
      if (settings.cold() != null) {
        cold = new ColdStart(settings.cold(), out, dir, broker, upstream, wrk).run();
      }
      if (rounds > 0) {
        warm = warm(settings, out, dir, broker, upstream, wrk, burstWrk);
      }
    }
    if (cold != null && warm != null) {
      sideBySide(out, cold, warm);
    }
    if (cold != null || warm != null) {
      ProxyTargets.of(cold, warm).print(out);
    }
    out.printf(
        Locale.ROOT,
        "%nReference (performance-anchors.md §(a), this machine, earlier): tuned nginx +0.32 ms"
            + " p50, +0.12 ms p99, 99.3 %% of direct, 38 µs CPU/request at ~195 rps.%n");
    return 0;
  }

  /** The warm regime: long-lived proxies after a burst warm-up, interleaved rounds. */
  private static Map<String, ColdStart.Summary> warm(
      Settings settings,
      PrintStream out,
      Path dir,
      KafkaBroker broker,
      DemoUpstream upstream,
      Wrk wrk,
      Wrk burstWrk)
      throws Exception {
    int rounds = settings.rounds();
    Duration seconds = settings.seconds();
    Duration warmup = settings.warmup();
    Duration burst = settings.burst();
    List<String> wanted = settings.targets();
    Map<String, ColdStart.Summary> summaries;
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    Map<String, Path> jvmLogs = new LinkedHashMap<>();
    try (Nginx nginx = Nginx.start(dir.resolve("nginx"), Ports.free("127.0.0.1"), upstream.port());
        PrefixlogProxy prefixlog =
            wanted.contains("prefixlog")
                ? PrefixlogProxy.start(dir.resolve("prefixlog"), upstream.baseUrl(), broker)
                : null;
        // The same proxy with its latency histograms off: what they cost, in the same rounds.
        PrefixlogProxy noHistograms =
            wanted.contains("prefixlog-nohist")
                ? PrefixlogProxy.start(
                    dir.resolve("prefixlog-nohist"), upstream.baseUrl(), broker, false)
                : null;
        // The same proxy with a variant's JVM flags (e.g. thread priorities), in the same rounds.
        VariantProxies variants =
            VariantProxies.start(settings.variants(), dir, upstream.baseUrl(), broker);
        // References without capture: what a JVM proxy on Netty alone, and on Vert.x, costs.
        FloorProxy nettyFloor =
            wanted.contains("netty-floor")
                ? FloorProxy.start(dir.resolve("netty-floor"), "netty", upstream.baseUrl())
                : null;
        FloorProxy vertxFloor =
            wanted.contains("vertx-floor")
                ? FloorProxy.start(dir.resolve("vertx-floor"), "vertx", upstream.baseUrl())
                : null) {
      String path = "/v1/chat/completions";
      List<Target> targets = new ArrayList<>();
      targets.add(new Target("direct", upstream.baseUrl() + path, () -> -1, Map::of, () -> -1));
      if (wanted.contains("nginx")) {
        targets.add(
            new Target(
                "nginx",
                "http://127.0.0.1:" + nginx.port() + path,
                nginx::cpuNanos,
                Map::of,
                nginx::workerWaitNanos));
      }
      if (prefixlog != null) {
        targets.add(Target.of("prefixlog", prefixlog, path));
      }
      if (noHistograms != null) {
        targets.add(Target.of("prefixlog-nohist", noHistograms, path));
      }
      variants.forEach((name, proxy) -> targets.add(Target.of(name, proxy, path)));
      for (FloorProxy floor : new FloorProxy[] {nettyFloor, vertxFloor}) {
        if (floor != null) {
          targets.add(
              new Target(
                  floor == nettyFloor ? "netty-floor" : "vertx-floor",
                  "http://127.0.0.1:" + floor.port() + path,
                  floor::cpuNanos,
                  floor::threadGroupNanos,
                  floor::loopWaitNanos));
        }
      }
      out.println("kafka: " + broker.bootstrapServers() + "; targets: " + names(targets));
      settings.variants().forEach(v -> out.println("  prefixlog-" + v.name() + ": " + v.flags()));

      // Warm-up, the same for every target: a burst at many connections (several times the
      // measured request rate, so a JVM's JIT compilers reach steady state in seconds rather than
      // over the first minutes of measurement), then the measured load itself (connection pools,
      // producer metadata, steady rates).
      // In 5 s pieces: every wrk run opens and closes its connections, and a JIT that has only
      // seen one long run compiles those paths away and deoptimises at every round's start.
      for (Target target : targets) {
        for (Duration left = burst;
            !left.isNegative() && !left.isZero();
            left = left.minusSeconds(5)) {
          burstWrk.run(target.url(), left.compareTo(PIECE) < 0 ? left : PIECE);
        }
        for (Duration left = warmup;
            !left.isNegative() && !left.isZero();
            left = left.minusSeconds(5)) {
          wrk.run(target.url(), left.compareTo(PIECE) < 0 ? left : PIECE);
        }
      }
      targets.stream()
          .filter(t -> t.jvmLog() != null)
          .forEach(t -> jvmLogs.put(t.name(), t.jvmLog()));
      Map<String, Long> threadNanos = new HashMap<>();
      // The broker shares the cores too: its CPU per request while each target runs (for direct
      // and nginx, what it spends idle).
      Map<String, long[]> brokerNanosAndRequests = new LinkedHashMap<>();
      long[] measuredRequests = {0};
      targets.forEach(t -> runs.put(t.name(), new ArrayList<>()));
      for (int round = 0; round < rounds; round++) {
        StringBuilder line = new StringBuilder("round " + (round + 1) + ":");
        for (int i = 0; i < targets.size(); i++) {
          Target target = targets.get((i + round) % targets.size());
          long cpuBefore = target.cpuNanos().getAsLong();
          long engineWaitBefore = engineLoopWaitNanos();
          long proxyWaitBefore = target.loopWaitNanos().getAsLong();
          long brokerBefore = ProcCpu.nanos(broker.pid());
          Map<String, Long> threadsBefore = target.threads().get();
          long fromMillis = System.currentTimeMillis();
          Wrk.Result result = wrk.run(target.url(), seconds);
          long toMillis = System.currentTimeMillis();
          long cpuAfter = target.cpuNanos().getAsLong();
          double engineWait = (engineLoopWaitNanos() - engineWaitBefore) / 1e3 / result.requests();
          double proxyWait =
              (target.loopWaitNanos().getAsLong() - proxyWaitBefore) / 1e3 / result.requests();
          long[] brokerUse =
              brokerNanosAndRequests.computeIfAbsent(target.name(), n -> new long[2]);
          brokerUse[0] += ProcCpu.nanos(broker.pid()) - brokerBefore;
          brokerUse[1] += result.requests();
          Map<String, Long> threadsAfter = target.threads().get();
          StringBuilder roundThreads = new StringBuilder();
          long[] jit = new long[1];
          threadsAfter.forEach(
              (group, nanos) -> {
                long used = nanos - threadsBefore.getOrDefault(group, 0L);
                if (target.name().equals("prefixlog")) {
                  threadNanos.merge(group, used, Long::sum);
                }
                if (group.contains("Compiler")) {
                  jit[0] += used;
                }
                if (used * 20 > cpuAfter - cpuBefore && result.requests() > 0) {
                  roundThreads.append(
                      String.format(
                          Locale.ROOT, " %s %.0f", group, used / 1e3 / result.requests()));
                }
              });
          if (target.name().equals("prefixlog")) {
            measuredRequests[0] += result.requests();
          }
          long cpu = cpuBefore < 0 || cpuAfter < 0 ? -1 : cpuAfter - cpuBefore;
          runs.get(target.name()).add(new Run(result, cpu, jit[0], fromMillis, toMillis));
          line.append(
              String.format(
                  Locale.ROOT,
                  "  %s %.1f rps p50 %.2f p99 %.2f ms%s",
                  target.name(),
                  result.rps(),
                  result.p50() / 1e3,
                  result.p99() / 1e3,
                  result.errors() > 0 ? " ERRORS " + result.errors() : ""));
          // Time runnable but without a CPU, per request: the engine's event loop (every target
          // goes through it) and the proxy's (prefixlog's event loop, nginx's worker).
          line.append(String.format(Locale.ROOT, " [cpu wait µs/req: engine %.0f", engineWait));
          if (proxyWaitBefore >= 0) {
            line.append(String.format(Locale.ROOT, ", proxy %.0f", proxyWait));
          }
          line.append("]");
          if (roundThreads.length() > 0) {
            line.append(" [µs/req:").append(roundThreads).append("]");
          }
        }
        out.println(line);
      }
      summaries = print(out, runs);
      withDropped(summaries, "prefixlog", prefixlog);
      withDropped(summaries, "prefixlog-nohist", noHistograms);
      for (Map.Entry<String, PrefixlogProxy> v : variants.entrySet()) {
        withDropped(summaries, v.getKey(), v.getValue());
      }
      if (prefixlog != null) {
        out.println();
        out.println("prefixlog capture: " + prefixlog.captureSummary());
        StringBuilder byThread = new StringBuilder();
        threadNanos.entrySet().stream()
            .filter(e -> e.getValue() > 0)
            .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
            .limit(8)
            .forEach(
                e ->
                    byThread.append(
                        String.format(
                            Locale.ROOT,
                            "%s%s %.0f",
                            byThread.length() == 0 ? "" : ", ",
                            e.getKey(),
                            e.getValue() / 1e3 / Math.max(1, measuredRequests[0]))));
        out.println(
            "prefixlog proxy CPU µs/request by thread group, all rounds (/proc/<pid>/task): "
                + byThread);
        StringBuilder brokerLine = new StringBuilder();
        brokerNanosAndRequests.forEach(
            (name, use) ->
                brokerLine.append(
                    String.format(
                        Locale.ROOT,
                        "%s%s %.0f",
                        brokerLine.length() == 0 ? "" : ", ",
                        name,
                        use[0] / 1e3 / Math.max(1, use[1]))));
        out.println(
            "Kafka broker CPU µs/request while each target ran (same cores; only prefixlog"
                + " publishes): "
                + brokerLine);
      }
    }
    printPauses(out, runs, jvmLogs);
    return summaries;
  }

  /**
   * The proxy JVMs' collector and stop-the-world pauses in the measured runs (their logs, read once
   * the proxies stopped): which collector ran, how often and how long it paused per run, the
   * longest pause, and the heap committed at the end, so that a variant's collector and sizing are
   * seen to be the ones it asked for.
   */
  private static void printPauses(
      PrintStream out, Map<String, List<Run>> runs, Map<String, Path> jvmLogs) throws IOException {
    if (jvmLogs.isEmpty()) {
      return;
    }
    TextTable table =
        new TextTable(
            "target",
            "collector",
            "GC pauses/run",
            "GC ms/run",
            "GC µs/req",
            "longest GC ms",
            "safepoint ms/run",
            "heap MiB at end");
    for (Map.Entry<String, Path> e : jvmLogs.entrySet()) {
      JvmPauses pauses = JvmPauses.read(e.getValue());
      List<Run> target = runs.get(e.getKey());
      int n = target.size();
      double[] count = new double[n];
      double[] gcMillis = new double[n];
      double[] perRequest = new double[n];
      double[] safepoint = new double[n];
      double longest = 0;
      long heap = -1;
      for (int i = 0; i < n; i++) {
        Run run = target.get(i);
        JvmPauses.Window w = pauses.window(run.fromMillis(), run.toMillis());
        count[i] = w.gcCount();
        gcMillis[i] = w.gcMillis();
        perRequest[i] = w.gcMillis() * 1e3 / Math.max(1, run.wrk().requests());
        safepoint[i] = w.safepointMillis();
        longest = Math.max(longest, w.maxGc());
        heap = w.heapMiB() < 0 ? heap : w.heapMiB();
      }
      table.row(
          e.getKey(),
          pauses.collector(),
          f("%.1f", Medians.of(count)),
          f("%.1f", Medians.of(gcMillis)),
          f("%.1f", Medians.of(perRequest)),
          f("%.1f", longest),
          f("%.1f", Medians.of(safepoint)),
          heap < 0 ? "-" : Long.toString(heap));
    }
    out.println();
    out.println(
        "Proxy JVMs' pauses in the measured runs (-Xlog:gc,safepoint): medians over rounds per"
            + " run; longest GC over all runs; heap committed after the last collection in a run.");
    table.print(out);
  }

  /** Puts the proxy's dropped-event count (over all warm rounds) into its warm summary. */
  private static void withDropped(
      Map<String, ColdStart.Summary> summaries, String target, PrefixlogProxy proxy)
      throws IOException, InterruptedException {
    ColdStart.Summary s = summaries.get(target);
    if (proxy != null && s != null) {
      summaries.put(
          target,
          new ColdStart.Summary(
              s.addedP50(), s.addedP99(), s.cpuMicrosPerRequest(), proxy.capture().dropped()));
    }
  }

  /** Both regimes' whole figures per target, next to each other. */
  private static void sideBySide(
      PrintStream out, Map<String, ColdStart.Summary> cold, Map<String, ColdStart.Summary> warm) {
    TextTable table =
        new TextTable(
            "target",
            "cold added p50",
            "cold added p99",
            "cold CPU µs/req",
            "warm added p50",
            "warm added p99",
            "warm CPU µs/req");
    for (Map.Entry<String, ColdStart.Summary> e : cold.entrySet()) {
      ColdStart.Summary c = e.getValue();
      ColdStart.Summary w = warm.get(e.getKey());
      table.row(
          e.getKey(),
          f("%+.2f ms", c.addedP50()),
          f("%+.2f ms", c.addedP99()),
          f("%.0f", c.cpuMicrosPerRequest()),
          w == null ? "-" : f("%+.2f ms", w.addedP50()),
          w == null ? "-" : f("%+.2f ms", w.addedP99()),
          w == null ? "-" : f("%.0f", w.cpuMicrosPerRequest()));
    }
    out.println();
    out.println(
        "Both regimes, medians over rounds: cold = the whole first window after a fresh start,"
            + " warm = after the burst warm-up.");
    table.print(out);
  }

  /** Run-queue wait of the engine's event loops (the demo engine runs in this JVM). */
  private static long engineLoopWaitNanos() {
    return ProcCpu.threadGroupWaitNanos(ProcessHandle.current().pid())
        .getOrDefault("vert.x-eventloo", 0L);
  }

  private static Map<String, ColdStart.Summary> print(
      PrintStream out, Map<String, List<Run>> runs) {
    Map<String, ColdStart.Summary> summaries = new LinkedHashMap<>();
    List<Run> direct = runs.get("direct");
    TextTable table =
        new TextTable(
            "target",
            "rps",
            "vs direct",
            "p50 ms",
            "added p50",
            "p99 ms",
            "added p99",
            "p99.9 ms",
            "CPU µs/req",
            "w/o JIT",
            "errors");
    for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
      List<Run> target = e.getValue();
      int n = target.size();
      IntFunction<Wrk.Result> r = i -> target.get(i).wrk();
      IntFunction<Wrk.Result> d = i -> direct.get(i).wrk();
      double added50 = Medians.over(n, i -> (r.apply(i).p50() - d.apply(i).p50()) / 1e3);
      double added99 = Medians.over(n, i -> (r.apply(i).p99() - d.apply(i).p99()) / 1e3);
      double cpu = Medians.over(n, i -> target.get(i).cpuMicrosPerRequest());
      double cpuWithoutJit = Medians.over(n, i -> target.get(i).cpuMicrosPerRequestWithoutJit());
      boolean isDirect = e.getKey().equals("direct");
      if (!isDirect) {
        summaries.put(e.getKey(), new ColdStart.Summary(added50, added99, cpu, -1));
      }
      table.row(
          e.getKey(),
          f("%.1f", Medians.over(n, i -> r.apply(i).rps())),
          isDirect
              ? "100 %"
              : f("%.1f %%", 100 * Medians.over(n, i -> r.apply(i).rps() / d.apply(i).rps())),
          f("%.2f", Medians.over(n, i -> r.apply(i).p50() / 1e3)),
          isDirect ? "-" : f("%+.2f ms", added50),
          f("%.2f", Medians.over(n, i -> r.apply(i).p99() / 1e3)),
          isDirect ? "-" : f("%+.2f ms", added99),
          f("%.2f", Medians.over(n, i -> r.apply(i).p999() / 1e3)),
          Double.isNaN(cpu) ? "-" : f("%.0f", cpu),
          Double.isNaN(cpuWithoutJit) ? "-" : f("%.0f", cpuWithoutJit),
          Long.toString(target.stream().mapToLong(run -> run.wrk().errors()).sum()));
    }
    out.println();
    out.println(
        "Medians over rounds; added latency and throughput are per round against that round's"
            + " direct run.");
    table.print(out);
    out.println(
        "Targets for prefixlog: added p50 <= 0.3 ms, added p99 <= 0.5 ms warm and <= 1"
            + " ms in the first minute, throughput >= 99 % of direct, CPU per request <= 2x nginx's."
            + " CPU: /proc/<pid>/stat utime+stime over the run / requests (prefixlog: the"
            + " whole proxy JVM, Kafka producer, GC and JIT included; nginx: master + worker)."
            + " w/o JIT: the same less the JIT compiler threads' CPU (a JVM's first compilations"
            + " of lukewarm code still run minutes after its start).");
    List<Run> with = runs.get("prefixlog");
    List<Run> without = runs.get("prefixlog-nohist");
    if (with != null && without != null) {
      int n = Math.min(with.size(), without.size());
      double cpuRatio =
          Medians.over(
              n, i -> with.get(i).cpuMicrosPerRequest() / without.get(i).cpuMicrosPerRequest());
      double ownRatio =
          Medians.over(
              n,
              i ->
                  with.get(i).cpuMicrosPerRequestWithoutJit()
                      / without.get(i).cpuMicrosPerRequestWithoutJit());
      double p50Delta =
          Medians.over(n, i -> (with.get(i).wrk().p50() - without.get(i).wrk().p50()) / 1e3);
      // The JIT still compiles in the measured rounds, in bursts of ~100 µs/request that land in
      // one round or another: the figure without its threads is the steadier one.
      out.printf(
          Locale.ROOT,
          "Latency histograms (prefixlog against prefixlog-nohist, per round, median): CPU per"
              + " request %+.1f %% (without the JIT's threads %+.1f %%), p50 %+.3f ms. Target: CPU"
              + " <= +5 %%, p50 no higher.%n",
          100 * (cpuRatio - 1),
          100 * (ownRatio - 1),
          p50Delta);
    }
    return summaries;
  }

  private static String f(String format, double value) {
    return String.format(Locale.ROOT, format, value);
  }

  private static String names(List<Target> targets) {
    return String.join(", ", targets.stream().map(Target::name).toList());
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", tool));
  }
}
