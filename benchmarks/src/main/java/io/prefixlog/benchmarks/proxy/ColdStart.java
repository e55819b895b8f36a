package io.prefixlog.benchmarks.proxy;

import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.benchmarks.report.TextTable;
import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.embedded.KafkaBroker;
import io.prefixlog.embedded.Ports;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * ProxyBenchmark's cold-start mode: the first {@code window} after a fresh start. Every round
 * starts every proxy anew (a new nginx master and worker, a new proxy JVM), and wrk loads it from
 * the moment it listens, in {@code interval} pieces, so that each piece gives the tail of one part
 * of the first minute; direct runs the same pieces in the same round as the reference. Targets take
 * turns (the order rotates every round), each on its own, so no target's start-up (a JVM's class
 * loading and JIT) runs on the cores while another is measured.
 *
 * <p>For a proxy JVM, each piece also records what may explain its tail: the collector's pauses and
 * every safepoint ({@link JvmPauses}, from its {@code -Xlog:gc,safepoint} log), the CPU its JIT
 * compiler threads used, and how long its event loops waited runnable for a core ({@code
 * schedstat}).
 */
final class ColdStart {
  /** A proxy JVM started with extra flags: target {@code prefixlog-<name>}. */
  record Variant(String name, List<String> flags) {
    /** {@code name=flag flag;name=flag}, e.g. {@code nowarmup=-Dprefixlog.bench.warmupMs=0}. */
    static List<Variant> parse(String text) {
      List<Variant> variants = new ArrayList<>();
      for (String part : text.split(";")) {
        if (part.isBlank()) {
          continue;
        }
        int eq = part.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(
              "a variant is name=flags, but was '" + part + "' in '" + text + "'");
        }
        String flags = part.substring(eq + 1).trim();
        variants.add(
            new Variant(
                part.substring(0, eq).trim(),
                flags.isEmpty() ? List.of() : List.of(flags.split("\\s+"))));
      }
      return variants;
    }
  }

  /** The cold-start settings: rounds, the window after a start and its pieces. */
  record Settings(
      int rounds,
      Duration window,
      Duration interval,
      List<String> targets,
      List<Variant> variants) {
    int pieces() {
      return (int) Math.max(1, window.toSeconds() / interval.toSeconds());
    }
  }

  /** One piece of a window: the wrk run and what the target used and stood still meanwhile. */
  private record Piece(
      Wrk.Result wrk,
      long cpuNanos,
      long jitNanos,
      long loopWaitNanos,
      long fromMillis,
      long toMillis,
      JvmPauses.Window pauses) {
    double cpuMicrosPerRequest() {
      return cpuNanos < 0 ? Double.NaN : cpuNanos / 1e3 / wrk.requests();
    }
  }

  /**
   * One target's window in one round; {@code heap}: a proxy JVM's collector and the heap it had
   * committed after its last collection in the window (from its log), or null.
   */
  private record Window(
      List<Piece> pieces, double startMillis, PrefixlogProxy.Capture capture, String heap) {
    long requests() {
      return pieces.stream().mapToLong(p -> p.wrk().requests()).sum();
    }

    double cpuMicrosPerRequest() {
      long cpu = pieces.stream().mapToLong(Piece::cpuNanos).sum();
      return pieces.get(0).cpuNanos() < 0 ? Double.NaN : cpu / 1e3 / requests();
    }

    long percentile(double p) {
      return Wrk.Result.percentile(pieces.stream().map(Piece::wrk).toList(), p);
    }
  }

  /**
   * A target's whole-window figures, medians over rounds (ms and µs per request), and the capture
   * events it dropped over all rounds (-1: not a capture proxy, or not known).
   */
  record Summary(double addedP50, double addedP99, double cpuMicrosPerRequest, long dropped) {}

  private final Settings settings;
  private final PrintStream out;
  private final Path dir;
  private final KafkaBroker broker;
  private final DemoUpstream upstream;
  private final Wrk wrk;

  ColdStart(
      Settings settings,
      PrintStream out,
      Path dir,
      KafkaBroker broker,
      DemoUpstream upstream,
      Wrk wrk) {
    this.settings = settings;
    this.out = out;
    this.dir = dir;
    this.broker = broker;
    this.upstream = upstream;
    this.wrk = wrk;
  }

  /** Runs the rounds, prints them and the table; returns the whole-window summary per target. */
  Map<String, Summary> run() throws IOException, InterruptedException {
    List<String> targets = new ArrayList<>(List.of("direct"));
    for (String name : List.of("nginx", "prefixlog", "netty-floor", "vertx-floor")) {
      if (settings.targets().contains(name)) {
        targets.add(name);
      }
    }
    settings.variants().forEach(v -> targets.add("prefixlog-" + v.name()));
    out.printf(
        Locale.ROOT,
        "%ncold start: %d rounds; each starts every proxy anew and loads it from the moment it"
            + " listens, %d s in %d s pieces; targets %s%n",
        settings.rounds(),
        settings.window().toSeconds(),
        settings.interval().toSeconds(),
        String.join(", ", targets));
    settings.variants().forEach(v -> out.println("  prefixlog-" + v.name() + ": " + v.flags()));
    // The engine (in this JVM) is the reference, so it is warm before the first round.
    for (int i = 0; i < 2; i++) {
      wrk.run(upstream.baseUrl() + PATH, Duration.ofSeconds(5));
    }
    Map<String, List<Window>> windows = new LinkedHashMap<>();
    targets.forEach(t -> windows.put(t, new ArrayList<>()));
    for (int round = 0; round < settings.rounds(); round++) {
      for (int i = 0; i < targets.size(); i++) {
        String target = targets.get((i + round) % targets.size());
        Window window = measure(target, round);
        windows.get(target).add(window);
        out.println(line(round, target, window, windows.get("direct")));
      }
    }
    return print(windows);
  }

  private static final String PATH = "/v1/chat/completions";

  private Window measure(String target, int round) throws IOException, InterruptedException {
    Path roundDir = dir.resolve("cold").resolve("r" + (round + 1)).resolve(target);
    if (target.equals("direct")) {
      return new Window(pieces(upstream.baseUrl() + PATH, () -> -1, null, null), 0, null, null);
    }
    long started = System.nanoTime();
    if (target.equals("nginx")) {
      try (Nginx nginx = Nginx.start(roundDir, Ports.free("127.0.0.1"), upstream.port())) {
        double startMillis = (System.nanoTime() - started) / 1e6;
        return new Window(
            pieces("http://127.0.0.1:" + nginx.port() + PATH, nginx::cpuNanos, null, null),
            startMillis,
            null,
            null);
      }
    }
    if (target.endsWith("-floor")) {
      // No warm-up of its own and no capture: what any JVM proxy's first minute starts from.
      String kind = target.substring(0, target.indexOf('-'));
      try (FloorProxy floor = FloorProxy.start(roundDir, kind, upstream.baseUrl())) {
        double startMillis = (System.nanoTime() - started) / 1e6;
        return new Window(
            pieces(
                "http://127.0.0.1:" + floor.port() + PATH,
                floor::cpuNanos,
                () -> compilerNanos(floor.threadGroupNanos()),
                floor::loopWaitNanos),
            startMillis,
            null,
            null);
      }
    }
    List<String> flags = new ArrayList<>();
    for (Variant variant : settings.variants()) {
      if (target.equals("prefixlog-" + variant.name())) {
        flags.addAll(variant.flags());
      }
    }
    // PrefixlogProxy gives the JVM its pause log, roundDir/jvm.log.
    Path log = roundDir.resolve("jvm.log");
    List<Piece> pieces;
    PrefixlogProxy.Capture capture;
    double startMillis;
    try (PrefixlogProxy proxy =
        PrefixlogProxy.start(
            roundDir,
            upstream.baseUrl(),
            broker,
            "bench.cold.r" + (round + 1) + "." + target + ".",
            true,
            flags)) {
      startMillis = (System.nanoTime() - started) / 1e6;
      pieces =
          pieces(
              "http://127.0.0.1:" + proxy.port() + PATH,
              proxy::cpuNanos,
              () -> compilerNanos(proxy.threadGroupNanos()),
              proxy::loopWaitNanos);
      capture = proxy.capture();
    }
    JvmPauses pauses = JvmPauses.read(log);
    List<Piece> attributed = new ArrayList<>();
    for (Piece p : pieces) {
      attributed.add(
          new Piece(
              p.wrk(),
              p.cpuNanos(),
              p.jitNanos(),
              p.loopWaitNanos(),
              p.fromMillis(),
              p.toMillis(),
              pauses.window(p.fromMillis(), p.toMillis())));
    }
    JvmPauses.Window whole =
        pauses.window(pieces.get(0).fromMillis(), pieces.get(pieces.size() - 1).toMillis());
    return new Window(
        attributed,
        startMillis,
        capture,
        pauses.collector()
            + (whole.heapMiB() < 0 ? "" : ", heap " + whole.heapMiB() + " MiB after its last GC"));
  }

  /**
   * The window's pieces against {@code url}; {@code jit} and {@code loopWait}: a proxy JVM's
   * compiler threads' CPU and its event loops' run-queue wait, in nanoseconds, or null.
   */
  private List<Piece> pieces(String url, LongSupplier cpu, LongSupplier jit, LongSupplier loopWait)
      throws IOException, InterruptedException {
    List<Piece> pieces = new ArrayList<>();
    for (int i = 0; i < settings.pieces(); i++) {
      long cpuBefore = cpu.getAsLong();
      long jitBefore = jit == null ? 0 : jit.getAsLong();
      long waitBefore = loopWait == null ? 0 : loopWait.getAsLong();
      long from = System.currentTimeMillis();
      Wrk.Result result = wrk.run(url, settings.interval());
      long to = System.currentTimeMillis();
      long cpuAfter = cpu.getAsLong();
      pieces.add(
          new Piece(
              result,
              cpuBefore < 0 || cpuAfter < 0 ? -1 : cpuAfter - cpuBefore,
              jit == null ? 0 : jit.getAsLong() - jitBefore,
              loopWait == null ? 0 : loopWait.getAsLong() - waitBefore,
              from,
              to,
              null));
    }
    return pieces;
  }

  private static long compilerNanos(Map<String, Long> threadGroups) {
    return threadGroups.entrySet().stream()
        .filter(e -> e.getKey().contains("Compiler"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static String line(int round, String target, Window window, List<Window> directs) {
    StringBuilder line =
        new StringBuilder(String.format(Locale.ROOT, "round %d %-18s", round + 1, target));
    Window direct = directs.size() > round ? directs.get(round) : null;
    if (!target.equals("direct")) {
      line.append(String.format(Locale.ROOT, " listens after %.0f ms;", window.startMillis()));
    }
    line.append(" p99 per piece:");
    for (int i = 0; i < window.pieces().size(); i++) {
      Piece p = window.pieces().get(i);
      line.append(String.format(Locale.ROOT, " %.2f", p.wrk().p99() / 1e3));
      if (direct != null && !target.equals("direct")) {
        line.append(
            String.format(
                Locale.ROOT,
                "(%+.2f)",
                (p.wrk().p99() - direct.pieces().get(i).wrk().p99()) / 1e3));
      }
      if (p.pauses() != null) {
        line.append(
            String.format(
                Locale.ROOT,
                "[gc %d/%.1f sp %d/%.1f max %.1f jit %.0f]",
                p.pauses().gcCount(),
                p.pauses().gcMillis(),
                p.pauses().safepoints(),
                p.pauses().safepointMillis(),
                p.pauses().max(),
                p.jitNanos() / 1e6));
      }
    }
    line.append(
        String.format(
            Locale.ROOT,
            "; window p50 %.2f p99 %.2f ms, %d requests",
            window.percentile(50) / 1e3,
            window.percentile(99) / 1e3,
            window.requests()));
    long errors = window.pieces().stream().mapToLong(p -> p.wrk().errors()).sum();
    if (errors > 0) {
      line.append(" ERRORS ").append(errors);
    }
    if (window.capture() != null) {
      line.append(
          String.format(
              Locale.ROOT,
              "; published %d, dropped %d",
              window.capture().published(),
              window.capture().dropped()));
    }
    if (window.heap() != null) {
      line.append("; ").append(window.heap());
    }
    return line.toString();
  }

  /** The capture events a target dropped over all its rounds, or -1 when it captures nothing. */
  private static long dropped(List<Window> rounds) {
    if (rounds.stream().anyMatch(w -> w.capture() == null)) {
      return -1;
    }
    return rounds.stream().mapToLong(w -> w.capture().dropped()).sum();
  }

  private Map<String, Summary> print(Map<String, List<Window>> windows) {
    List<Window> direct = windows.get("direct");
    int n = settings.rounds();
    TextTable table =
        new TextTable(
            "target",
            "piece",
            "added p50",
            "added p99",
            "CPU µs/req",
            "GC ms",
            "safepoint ms",
            "max pause ms",
            "JIT CPU ms",
            "loop wait µs/req");
    Map<String, Summary> summaries = new LinkedHashMap<>();
    for (Map.Entry<String, List<Window>> e : windows.entrySet()) {
      if (e.getKey().equals("direct")) {
        continue;
      }
      List<Window> target = e.getValue();
      for (int piece = 0; piece <= settings.pieces(); piece++) {
        boolean whole = piece == settings.pieces();
        double[] added50 = new double[n];
        double[] added99 = new double[n];
        double[] cpu = new double[n];
        double[] gc = new double[n];
        double[] safepoint = new double[n];
        double[] max = new double[n];
        double[] jit = new double[n];
        double[] wait = new double[n];
        for (int r = 0; r < n; r++) {
          Window w = target.get(r);
          Window d = direct.get(r);
          if (whole) {
            added50[r] = (w.percentile(50) - d.percentile(50)) / 1e3;
            added99[r] = (w.percentile(99) - d.percentile(99)) / 1e3;
            cpu[r] = w.cpuMicrosPerRequest();
            for (Piece p : w.pieces()) {
              if (p.pauses() != null) {
                gc[r] += p.pauses().gcMillis();
                safepoint[r] += p.pauses().safepointMillis();
                max[r] = Math.max(max[r], p.pauses().max());
              }
              jit[r] += p.jitNanos() / 1e6;
              wait[r] += p.loopWaitNanos() / 1e3 / w.requests();
            }
          } else {
            Piece p = w.pieces().get(piece);
            Piece dp = d.pieces().get(piece);
            added50[r] = (p.wrk().p50() - dp.wrk().p50()) / 1e3;
            added99[r] = (p.wrk().p99() - dp.wrk().p99()) / 1e3;
            cpu[r] = p.cpuMicrosPerRequest();
            if (p.pauses() != null) {
              gc[r] = p.pauses().gcMillis();
              safepoint[r] = p.pauses().safepointMillis();
              max[r] = p.pauses().max();
            }
            jit[r] = p.jitNanos() / 1e6;
            wait[r] = p.loopWaitNanos() / 1e3 / p.wrk().requests();
          }
        }
        // Pauses are read from the prefixlog proxies' logs; the floors give JIT and waits only.
        boolean paused = e.getKey().startsWith("prefixlog");
        boolean jvm = paused || e.getKey().endsWith("-floor");
        long from = piece * settings.interval().toSeconds();
        table.row(
            e.getKey(),
            whole
                ? "whole " + settings.window().toSeconds() + " s"
                : from + "-" + (from + settings.interval().toSeconds()) + " s",
            f("%+.2f ms", Medians.of(added50)),
            f("%+.2f ms", Medians.of(added99)),
            Double.isNaN(Medians.of(cpu)) ? "-" : f("%.0f", Medians.of(cpu)),
            paused ? f("%.1f", Medians.of(gc)) : "-",
            paused ? f("%.1f", Medians.of(safepoint)) : "-",
            paused ? f("%.1f", Medians.of(max)) : "-",
            jvm ? f("%.0f", Medians.of(jit)) : "-",
            jvm ? f("%.0f", Medians.of(wait)) : "-");
        if (whole) {
          summaries.put(
              e.getKey(),
              new Summary(
                  Medians.of(added50), Medians.of(added99), Medians.of(cpu), dropped(target)));
        }
      }
    }
    out.println();
    out.println(
        "Cold start: medians over rounds of per-round figures; added = target − the same round's"
            + " direct, per piece (wrk's percentiles of the piece) and over the whole window (all"
            + " its pieces' latencies merged). GC ms and safepoint ms: pause time ending in the"
            + " piece (-Xlog:gc,safepoint; safepoints include the GC ones); max pause: the longest"
            + " safepoint; JIT CPU: the compiler threads' CPU (/proc/<pid>/task); loop wait: the"
            + " event loops' run-queue wait (schedstat).");
    table.print(out);
    attribute(windows, direct);
    return summaries;
  }

  /**
   * Where the tail comes from: the pieces whose added p99 was above 1 ms against the others, with
   * the median pause time, longest pause, JIT CPU and run-queue wait of each group.
   */
  private void attribute(Map<String, List<Window>> windows, List<Window> direct) {
    for (Map.Entry<String, List<Window>> e : windows.entrySet()) {
      if (!e.getKey().startsWith("prefixlog")) {
        continue;
      }
      List<double[]> slow = new ArrayList<>();
      List<double[]> fast = new ArrayList<>();
      for (int r = 0; r < e.getValue().size(); r++) {
        List<Piece> pieces = e.getValue().get(r).pieces();
        for (int i = 0; i < pieces.size(); i++) {
          Piece p = pieces.get(i);
          double added = (p.wrk().p99() - direct.get(r).pieces().get(i).wrk().p99()) / 1e3;
          double[] row = {
            p.pauses().safepointMillis(),
            p.pauses().max(),
            p.jitNanos() / 1e6,
            p.loopWaitNanos() / 1e3 / p.wrk().requests()
          };
          (added > 1.0 ? slow : fast).add(row);
        }
      }
      out.printf(
          Locale.ROOT,
          "%s tail attribution: %d of %d pieces above +1 ms p99; median per piece, above | at or"
              + " below: safepoint ms %s | %s, longest pause ms %s | %s, JIT CPU ms %s | %s, loop"
              + " wait µs/req %s | %s%n",
          e.getKey(),
          slow.size(),
          slow.size() + fast.size(),
          column(slow, 0),
          column(fast, 0),
          column(slow, 1),
          column(fast, 1),
          column(slow, 2),
          column(fast, 2),
          column(slow, 3),
          column(fast, 3));
    }
  }

  private static String column(List<double[]> rows, int column) {
    if (rows.isEmpty()) {
      return "-";
    }
    return f("%.1f", Medians.of(rows.stream().mapToDouble(r -> r[column]).toArray()));
  }

  private static String f(String format, double value) {
    return String.format(Locale.ROOT, format, value);
  }
}
