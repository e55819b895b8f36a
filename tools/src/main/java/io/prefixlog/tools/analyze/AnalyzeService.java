package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Analysis;
import io.prefixlog.analysis.mrc.LookupAnalyzer;
import io.prefixlog.analysis.mrc.MrcAnalyzer;
import io.prefixlog.analysis.mrc.OptAnalyzer;
import io.prefixlog.analysis.mrc.OptimalCurves;
import io.prefixlog.analysis.mrc.Windowing;
import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import io.prefixlog.schemas.Topics;
import io.prefixlog.tools.Command;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The LRU hit rate of a KV cache at every capacity, from chunk-hash lookup records (the lookups
 * topic, its dumps, or LMCache's lookup-hash logs), in one pass, with a rolling hit rate over time
 * and the engine's own hit rate beside it; or, with {@link AnalyzeRequest#chunkSizes()}, the
 * chunk-size what-if over the captured bodies. The engine is {@link MrcAnalyzer}; this class reads,
 * orders and names the requests, and writes the report, CSV and PNG files.
 *
 * <p>{@code prefixlog analyze} and every caller in this JVM (the UI's cache page, {@code up}'s
 * demo) run it with a typed {@link AnalyzeRequest}: the report is printed on the terminal given,
 * progress bars and problems on its err, as the command prints them.
 */
public final class AnalyzeService {
  /** What a run ended with, and the CSV and PNG files it wrote (in the order it wrote them). */
  public record Result(Outcome outcome, List<Path> written) {
    public Result {
      Objects.requireNonNull(outcome, "outcome");
      written = List.copyOf(written);
    }
  }

  private final Terminal terminal;

  public AnalyzeService(Terminal terminal) {
    this.terminal = Objects.requireNonNull(terminal, "terminal");
  }

  /** Runs the analysis the request describes; the report goes to the terminal. */
  public Result run(AnalyzeRequest settings) {
    Objects.requireNonNull(settings, "settings");
    List<Path> written = new ArrayList<>();
    int code = analyze(settings, written);
    return new Result(Outcome.ofExitCode(code), written);
  }

  private int analyze(AnalyzeRequest settings, List<Path> written) {
    if (settings.chunkSizes() != null) {
      return ChunkSizeCommand.run(terminal, settings, written);
    }
    Trace trace = new Trace(settings.model(), settings.chainMemory());
    String input;
    try {
      input = read(settings, trace);
    } catch (NoSuchFileException e) {
      return failed(
          "--file "
              + e.getFile()
              + ": "
              + (e.getReason() == null ? "no such file" : e.getReason()));
    } catch (IOException e) {
      return failed("cannot read the input: " + e);
    } catch (LookupTopic.ReadException e) {
      return failed(e.getMessage());
    }
    return analyze(settings, trace, input, written);
  }

  private int analyze(AnalyzeRequest settings, Trace trace, String input, List<Path> written) {
    PrintStream out = terminal.out();
    List<Lookup> lookups = trace.sorted();
    StringBuilder header = new StringBuilder(input);
    describeTrace(header, trace, settings, lookups);
    long unresolved = trace.resolution().unresolvedTotal();
    if (unresolved > 0) {
      terminal
          .err()
          .println(
              "prefixlog analyze: "
                  + Units.count(unresolved, "version 2 lookup record")
                  + " could not be resolved and "
                  + (unresolved == 1 ? "was" : "were")
                  + " left out; the summary says why");
    }
    if (trace.problemCount() > 0) {
      terminal
          .err()
          .println(
              "prefixlog analyze: "
                  + Units.count(trace.problemCount())
                  + (trace.problemCount() == 1 ? " bad line was" : " bad lines were")
                  + " skipped; the summary lists where");
    }
    if (lookups.isEmpty()) {
      out.print(header);
      out.println(
          "FAILED: no lookup records to analyse"
              + (settings.model() != null ? " for --model " + settings.model() : ""));
      out.flush();
      return Command.FAILED;
    }
    Map<String, CacheInfo> caches = trace.caches();
    long bytesPerChunk = settings.bytesPerChunk();
    Map<Long, String> asked = new TreeMap<>();
    for (Quantities.Capacity capacity : settings.capacities()) {
      long perChunk = bytesPerChunk;
      if (capacity.inBytes() && perChunk == 0) {
        perChunk = commonKvBytes(caches);
        if (perChunk == 0) {
          return usage(
              "--capacity "
                  + capacity.text()
                  + " is in bytes, but the KV bytes of a chunk are not known"
                  + (caches.size() > 1 ? " (or differ between models)" : "")
                  + ": give --bytes-per-chunk, or the capacity in chunks");
        }
      }
      asked.merge(capacity.chunks(perChunk), capacity.text(), (a, b) -> a + ", " + b);
    }
    Windowing windowing = windowing(settings, lookups);
    Function<Lookup, String> cacheOf = trace.cacheNamer();
    Analysis analysis;
    if (asked.isEmpty()) {
      // The capacities worth following over time are known only from the curve: a first pass
      // without windows finds them.
      Analysis first = pass(settings, lookups, cacheOf, Windowing.none(), new long[0], "curve");
      List<Subject> subjects = Subject.of(first, caches, bytesPerChunk);
      long[] defaults =
          java.util.stream.LongStream.of(
                  subjects.get(0).capacityFor(0.5), subjects.get(0).capacityFor(0.9))
              .filter(c -> c > 0)
              .distinct()
              .toArray();
      analysis =
          defaults.length == 0
              ? first
              : pass(settings, lookups, cacheOf, windowing, defaults, "rolling");
    } else {
      long[] capacities = asked.keySet().stream().mapToLong(Long::longValue).toArray();
      analysis = pass(settings, lookups, cacheOf, windowing, capacities, "analyze");
    }
    OptimalCurves optimal = null;
    if (!settings.noOpt() && settings.sampling().isExact()) {
      optimal = optimal(settings, lookups, cacheOf);
    }
    List<Subject> subjects = Subject.of(analysis, optimal, caches, bytesPerChunk);
    out.print(Report.summary(header.toString(), analysis, subjects, asked));
    out.flush();
    RoutingWhatIf.Plan routing = null;
    List<RoutingWhatIf.Fleet> fleets = List.of();
    if (settings.replicas() > 0) {
      long perChunk = bytesPerChunk > 0 ? bytesPerChunk : commonKvBytes(caches);
      if (settings.replicaCapacity().inBytes() && perChunk == 0) {
        return usage(
            "--replica-capacity "
                + settings.replicaCapacity().text()
                + " is in bytes, but the KV bytes of a chunk are not known: give"
                + " --bytes-per-chunk, or the capacity in chunks");
      }
      routing =
          new RoutingWhatIf.Plan(
              settings.replicas(),
              settings.replicaCapacity().chunks(perChunk),
              settings.replicaCapacity().text(),
              perChunk,
              settings.policies(),
              settings.loadWindow(),
              settings.routingSeed());
      fleets =
          RoutingWhatIf.run(
              routing,
              lookups,
              cacheOf,
              (label, total) ->
                  Progress.counting(terminal, settings.progress(), label, total, "requests"));
      out.print(RoutingWhatIf.summary(routing, fleets));
      EngineFigures.Sources sources;
      try {
        sources = engineSources(settings);
      } catch (IOException e) {
        return failed("cannot read --source-stats: " + e);
      } catch (EngineFigures.BadInputException e) {
        return failed("--source-stats " + e.getMessage());
      }
      out.print(EngineFigures.summary(sources, settings.replicas(), lookups));
      out.flush();
    }
    try {
      if (settings.csv() != null && routing != null) {
        written.add(RoutingWhatIf.writeCsv(settings.csv(), routing, fleets));
      }
      if (settings.csv() != null) {
        written.addAll(
            CsvFiles.write(settings.csv(), analysis, subjects, settings.points(), asked.keySet()));
      }
      if (settings.png() != null) {
        written.addAll(Charts.write(settings.png(), analysis, subjects, asked));
      }
    } catch (IOException e) {
      return failed("cannot write the output: " + e);
    }
    Report.written(out, written);
    return Command.OK;
  }

  private Analysis pass(
      AnalyzeRequest settings,
      List<Lookup> lookups,
      Function<Lookup, String> cacheOf,
      Windowing windowing,
      long[] capacities,
      String label) {
    MrcAnalyzer.Builder builder = MrcAnalyzer.builder().sampling(settings.sampling());
    if (capacities.length > 0) {
      builder.windows(windowing).windowCapacities(capacities);
    }
    MrcAnalyzer analyzer = builder.build();
    feed(settings, lookups, cacheOf, label, analyzer);
    return analyzer.finish();
  }

  /**
   * The optimal curves: a pass of their own over the same lookups (OptAnalyzer keeps each model's
   * lookups and computes their OPT stack distances in {@code finish()}).
   */
  private OptimalCurves optimal(
      AnalyzeRequest settings, List<Lookup> lookups, Function<Lookup, String> cacheOf) {
    OptAnalyzer analyzer = new OptAnalyzer();
    feed(settings, lookups, cacheOf, "optimal", analyzer);
    return analyzer.finish();
  }

  /**
   * Gives every lookup to {@code analyzer} in order, as a request of the cache {@code cacheOf}
   * names, with a progress line labelled {@code label}.
   */
  private void feed(
      AnalyzeRequest settings,
      List<Lookup> lookups,
      Function<Lookup, String> cacheOf,
      String label,
      LookupAnalyzer analyzer) {
    try (Progress progress =
        Progress.counting(terminal, settings.progress(), label, lookups.size(), "requests")) {
      long done = 0;
      for (Lookup lookup : lookups) {
        analyzer.accept(
            lookup.timestampMs(),
            cacheOf.apply(lookup),
            lookup.keys(),
            0,
            lookup.keys().length,
            lookup.chunkSize(),
            lookup.seqLen(),
            lookup.promptTokens(),
            lookup.cachedTokens());
        if ((++done & 1023) == 0) {
          progress.update(done);
        }
      }
      progress.update(done);
    }
  }

  /**
   * The KV sources' statistics: the file given, else the statistics topic beside the lookups topic
   * read; none for lookup files without one.
   */
  private static EngineFigures.Sources engineSources(AnalyzeRequest settings)
      throws IOException, EngineFigures.BadInputException {
    if (settings.sourceStats() != null) {
      return EngineFigures.fromFile(settings.sourceStats());
    }
    if (!settings.files().isEmpty()) {
      return EngineFigures.Sources.none("lookup files read, no --source-stats given");
    }
    return EngineFigures.fromTopic(
        settings.bootstrap(), Topics.withPrefix(settings.topicPrefix()).sourceStats().name());
  }

  /** The KV bytes per chunk shared by every cache, or 0. */
  private static long commonKvBytes(Map<String, CacheInfo> caches) {
    long common = -1;
    for (CacheInfo info : caches.values()) {
      if (info.kvBytesPerChunk() == 0 || info.mixedKvBytes()) {
        return 0;
      }
      if (common >= 0 && common != info.kvBytesPerChunk()) {
        return 0;
      }
      common = info.kvBytesPerChunk();
    }
    return Math.max(common, 0);
  }

  private static Windowing windowing(AnalyzeRequest settings, List<Lookup> lookups) {
    if (settings.windowRequests() > 0) {
      return Windowing.byRequests(settings.windowRequests());
    }
    if (settings.window() != null) {
      return Windowing.byTime(settings.window());
    }
    long span = lookups.get(lookups.size() - 1).timestampMs() - lookups.get(0).timestampMs();
    return Windowing.byTime(
        Quantities.niceWindow(Duration.ofMillis(span), AnalyzeRequest.DEFAULT_WINDOWS));
  }

  private String read(AnalyzeRequest settings, Trace trace)
      throws IOException, LookupTopic.ReadException {
    if (!settings.files().isEmpty()) {
      List<Path> files = LookupFiles.expand(settings.files());
      try (Progress progress = Progress.bytes(terminal, settings.progress(), "read", 0)) {
        LookupFiles.read(files, trace, progress);
      }
      String names =
          files.size() == 1 ? files.get(0).toString() : Units.count(files.size(), "file");
      return String.format(
          Locale.ROOT,
          "analyze: %s: %s%s%n",
          names,
          Units.count(trace.records(), "lookup record"),
          trace.lmcacheRecords() > 0
              ? " (" + Units.count(trace.lmcacheRecords()) + " LMCache lookup-log lines)"
              : "");
    }
    String topic = Topics.withPrefix(settings.topicPrefix()).chunkLookups().name();
    LookupTopic.Stats stats;
    try (Progress progress =
        Progress.counting(terminal, settings.progress(), "read", 0, "records")) {
      stats = LookupTopic.read(settings.bootstrap(), topic, trace, progress);
    }
    StringBuilder s =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "analyze: %s at %s: %s, %s, %s of values%n",
                topic,
                settings.bootstrap(),
                Units.count(stats.partitions(), "partition"),
                Units.count(stats.records(), "record"),
                Units.bytes(stats.bytes())));
    if (trace.tombstones() > 0 || trace.replaced() > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "  %s, %s replaced by a later record of the same key%n",
              Units.count(trace.tombstones(), "tombstone"),
              Units.count(trace.replaced())));
    }
    return s.toString();
  }

  private static void describeTrace(
      StringBuilder s, Trace trace, AnalyzeRequest settings, List<Lookup> lookups) {
    if (settings.model() != null) {
      s.append(
          String.format(
              Locale.ROOT,
              "  --model %s: %s kept, %s of other models left out%n",
              settings.model(),
              Units.count(lookups.size()),
              Units.count(trace.filteredOut())));
    }
    if (trace.sampledOut() > 0) {
      // Capture sampling kept these requests' metadata and chunk hashes, not their bodies: they
      // are analysed like every other lookup, so the hit rates below cover all traffic.
      s.append(
          String.format(
              Locale.ROOT,
              "  %s of %s (%.1f %%) are hash-only lookups of requests whose bodies capture sampling"
                  + " left out; analysed like the others (hashed by the bridge), hit rates exact%n",
              Units.count(trace.sampledOut()),
              Units.count(trace.records(), "lookup record"),
              100.0 * trace.sampledOut() / Math.max(1, trace.records())));
    }
    Resolution.describe(s, trace.v2Records(), trace.resolution(), "--chain-memory");
    if (trace.blankLines() > 0) {
      s.append("  ").append(Units.count(trace.blankLines(), "blank line")).append(" skipped\n");
    }
    if (trace.problemCount() > 0) {
      List<String> shown = trace.problems();
      s.append(
          String.format(
              Locale.ROOT,
              "  %s skipped (first %d):%n",
              Units.count(trace.problemCount(), "bad line"),
              shown.size()));
      for (String problem : shown) {
        s.append("    ").append(problem).append('\n');
      }
    }
    if (!lookups.isEmpty()) {
      double first = lookups.get(0).timestamp();
      double last = lookups.get(lookups.size() - 1).timestamp();
      DateTimeFormatter format =
          DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);
      s.append(
          String.format(
              Locale.ROOT,
              "  %s from %s to %s UTC (%s)%n",
              Units.count(lookups.size(), "request"),
              format.format(Instant.ofEpochMilli((long) (first * 1000))),
              format.format(Instant.ofEpochMilli((long) (last * 1000))),
              Quantities.span(Duration.ofMillis((long) ((last - first) * 1000)))));
    }
  }

  private int usage(String message) {
    terminal.err().println("prefixlog analyze: " + message);
    return Command.USAGE;
  }

  private int failed(String message) {
    terminal.err().println("prefixlog analyze: " + message);
    return Command.FAILED;
  }
}
