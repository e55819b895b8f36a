package io.prefixlog.tools.analyze;

import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.core.mrc.Analysis;
import io.prefixlog.core.mrc.MrcAnalyzer;
import io.prefixlog.core.mrc.OptAnalyzer;
import io.prefixlog.core.mrc.OptimalCurves;
import io.prefixlog.core.mrc.Sampling;
import io.prefixlog.core.mrc.Windowing;
import io.prefixlog.core.routing.RoutingPolicy;
import io.prefixlog.schemas.Topics;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.archive.ArchiveOptions;
import io.prefixlog.tools.cli.CommandLine;
import io.prefixlog.tools.cli.Option;
import io.prefixlog.tools.cli.Progress;
import io.prefixlog.tools.cli.Terminal;
import io.prefixlog.tools.cli.Units;
import io.prefixlog.tools.cli.UsageException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * {@code prefixlog analyze}: the LRU hit rate of a KV cache at every capacity, from chunk-hash
 * lookup records (the lookups topic, its dumps, or LMCache's lookup-hash logs), in one pass, with a
 * rolling hit rate over time and the engine's own hit rate beside it. The engine is {@link
 * MrcAnalyzer}; this class reads, orders and names the requests, and writes the report, CSV and PNG
 * files.
 */
public final class AnalyzeCommand implements Command {
  static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";

  /** Windows of the rolling hit rate when no span is given: about this many over the trace. */
  static final int DEFAULT_WINDOWS = 60;

  static final int DEFAULT_POINTS = 100;

  static final String DEFAULT_LOAD_WINDOW_TEXT = "10s";

  /** Each replica costs a few arrays and a column in the per-replica table. */
  static final int MAX_REPLICAS = 4096;

  private static final List<Option> BASE_OPTIONS =
      List.of(
          Option.value("bootstrap", "HOST:PORT", DEFAULT_BOOTSTRAP, "Kafka bootstrap servers."),
          Option.value(
              "topic-prefix",
              "PREFIX",
              "\"" + Topics.DEFAULT_PREFIX + "\"",
              "Prefix of every topic name: the lookups are read from <prefix>chunk.lookups."),
          Option.value(
                  "file",
                  "PATH",
                  "none (read the topic)",
                  "Read lookup files instead of the topic: a JSONL file, or a directory whose"
                      + " *.jsonl files are read in name order (LMCache's lookup_hashes_*.jsonl"
                      + " and chunk_hashes_*.jsonl logs, unchanged, or dumps of the lookups topic:"
                      + " kcat -J envelopes, or one record value per line, which has no keys to"
                      + " resolve version 2 records by). .gz files are decompressed.")
              .repeatable(),
          Option.value(
              "chain-memory",
              "SIZE",
              "256MiB",
              "Heap for resolving version 2 lookup records, which list only the hashes after"
                  + " those of their chain's previous turn: the newest turn's hashes of each chain"
                  + " (8 bytes a hash). A chain let go beyond it is reported as unresolved until"
                  + " its next whole record."),
          Option.value("model", "NAME", "all models", "Analyse only this model_name."),
          Option.value(
                  "capacity",
                  "C",
                  "the capacities for 50% and 90% of the achievable hit rate",
                  "A cache capacity to report and to follow over time: chunks (8192) or KV bytes"
                      + " (40GiB, 500GB; needs the bytes per chunk).")
              .repeatable(),
          Option.value(
              "bytes-per-chunk",
              "SIZE",
              "from LMCache's shapes x dtypes when present",
              "KV-cache bytes one chunk occupies (e.g. 2MiB; for Llama-3.1-8B in bf16 with"
                  + " 256-token chunks: 256 x 32 layers x 2 x 8 heads x 128 x 2 B = 32MiB)."
                  + " Shows capacities in bytes and allows byte capacities."),
          Option.value(
              "window",
              "SPAN",
              "about " + DEFAULT_WINDOWS + " windows over the trace",
              "Width of the rolling hit rate's windows: 30s, 5m, 1h, 1d."),
          Option.value(
              "window-requests", "N", "none", "Windows of N requests each instead of a time span."),
          Option.value(
              "sample",
              "RATE",
              "1 (exact)",
              "SHARDS sampling: follow only this fraction of chunk hashes (0.01 = 1%) for huge"
                  + " inputs; rates become estimates and the report says so."),
          Option.value(
              "csv",
              "DIR",
              "none",
              "Write curve.csv (hit rates by capacity) and rolling.csv (per window) into DIR."),
          Option.value(
              "png",
              "DIR",
              "none",
              "Write curve.png (hit rate vs capacity) and rolling.png (over time) into DIR, and"
                  + " curve-<model>.png, rolling-<model>.png per model when there are several."),
          Option.value(
              "points",
              "N",
              Integer.toString(DEFAULT_POINTS),
              "Capacities per model in curve.csv, log-spaced from 1 chunk to the working set."),
          Option.value(
              "replicas",
              "N",
              "none (no routing what-if)",
              "Routing what-if: replay the requests in time order over N replicas, each an LRU"
                  + " cache of --replica-capacity, under every --policies routing policy, and"
                  + " report aggregate and per-replica hit rates and load balance."),
          Option.value(
              "replica-capacity",
              "C",
              "none (required with --replicas)",
              "Each replica's cache: chunks (8192) or KV bytes (40GiB; needs the bytes per"
                  + " chunk)."),
          Option.value(
              "policies",
              "LIST",
              "all: " + RoutingPolicy.names(),
              "With --replicas: the routing policies to compare, comma-separated."),
          Option.value(
              "load-window",
              "SPAN",
              DEFAULT_LOAD_WINDOW_TEXT,
              "With --replicas: a replica's load is the units (tokens or bytes) of the requests"
                  + " routed to it within this span (least-loaded, prefix tie-breaks, prefix-load)."),
          Option.value(
              "source-stats",
              "FILE",
              "<prefix>kv.source-stats when reading the topic; none with --file",
              "With --replicas: the KV sources' statistics to show beside the simulation, from a"
                  + " dump of kv.source-stats (one record value per line, or kcat -J envelopes;"
                  + " the latest line of a source wins)."),
          Option.value(
              "routing-seed",
              "N",
              "1",
              "With --replicas: the seed of the random policy (the same seed, the same routing)."),
          Option.flag(
              "no-opt",
              "Skip the optimal (Belady/MIN) bound: a second pass that keeps every lookup in"
                  + " memory and, on large traces, takes far longer than the LRU pass."),
          Option.value(
              "chunk-sizes",
              "LIST",
              "none (analyse lookup records)",
              "Chunk-size what-if: rebuild every captured request body from the deltas topic"
                  + " (<prefix>session.deltas), --deltas-file or --archive, re-render it as the"
                  + " stream app does, re-hash it at each size (bytes of the rendering, or tokens"
                  + " with --tokenizer; comma-separated, e.g. 64,256,1024) and draw one LRU curve"
                  + " per size at equal capacity."),
          Option.value(
              "tokenizer",
              "FILE",
              "none (chunks count bytes)",
              "With --chunk-sizes: a HuggingFace tokenizer.json read from disk (never fetched);"
                  + " chunks then count token ids of the rendered prompt, as vLLM's blocks do."),
          Option.value(
              "kv-bytes-per-token",
              "SIZE",
              "none (capacities in units of prompt held)",
              "With --chunk-sizes: KV-cache bytes one token occupies (Llama-3.1-8B in bf16: 32"
                  + " layers x 2 x 8 heads x 128 x 2 B = 128KiB); byte chunks count "
                  + ChunkSizeWhatIf.BYTES_PER_TOKEN
                  + " bytes a token."),
          Option.value(
              "deltas-file",
              "PATH",
              "none (read the deltas topic)",
              "With --chunk-sizes: a kcat -J dump of the deltas topic instead of the topic."),
          Option.value(
              "table",
              "NS.NAME",
              ArchivedTopic.NAMESPACE + ".session_deltas",
              "With --chunk-sizes --archive: the archived delta table."),
          Option.flag("progress", "Show progress bars even when stderr is not a terminal."));

  static final List<Option> OPTIONS =
      java.util.stream.Stream.concat(
              BASE_OPTIONS.stream(),
              ArchiveOptions.options(
                  "With --chunk-sizes: rebuild the bodies from the archived delta table (Iceberg"
                      + " in S3, via its JDBC catalog) instead of the topic.")
                  .stream())
          .toList();

  private static final String DESCRIPTION =
      """
      Answers "what hit rate would a KV cache of capacity C give on this traffic?" for every C at
      once: one pass over the chunk-hash lookup records computes the exact LRU stack distance of
      every chunk lookup (Mattson), hence the hit rate at every capacity, with prefix-cache
      semantics (a request hits only its leading run of cached chunks, as vLLM and LMCache do)
      and per chunk, counted in chunk lookups and weighted by chunk size (tokens, or bytes of the
      rendered prompt for prefixlog's records; the partial last chunk of a request is a miss).
      Each model has its own cache; with several models, all models together are reported too.
      Also: the hit rate in windows over time at chosen capacities beside the cumulative one
      (LMCache's "rolling" rate), and the engine's actual hit rate (cached / prompt tokens) when
      the records carry it. Next to LRU, the optimal (Belady/MIN) hit rate at every capacity
      from the same lookups: the most any eviction policy could get from a cache of that
      capacity, and the gap to LRU (exact analyses only; --no-opt skips it). Reads the lookups
      topic (<prefix>chunk.lookups, read_committed, from the beginning to the end offsets at
      start; the latest record of a request_id wins), or files (--file): prefixlog's dumps and
      LMCache's lookup_hashes_*.jsonl logs unchanged. Version 2 records (a turn's hashes after
      those it shares with the previous turn of its chain) are resolved to their whole lists in
      the order read, so the analysis is the one their version 1 form gives; one whose previous
      turn was not read (the read began inside its chain, that turn was compacted, erased or
      expired, or a dump has no keys) is counted, with why, and left out until its chain's next
      whole record. Requests are ordered by timestamp. A bad line is reported as file:line,
      counted and skipped. With --chunk-sizes the input is the
      capture itself: every body is rebuilt from the session deltas (topic, kcat -J dump or
      archive), re-rendered and re-hashed at each size, and the sizes are compared at equal
      capacity. Exit code 0 when the analysis ran; 1 when there was nothing to analyse or an
      input or output failed; 2 for a bad command line.
      """;

  private final Terminal terminal;

  public AnalyzeCommand(Terminal terminal) {
    this.terminal = terminal;
  }

  @Override
  public Spec spec() {
    return new Spec(
        "analyze",
        "KV-cache hit rate vs capacity (all capacities, one pass) from chunk-hash lookups.",
        DESCRIPTION,
        OPTIONS);
  }

  @Override
  public int run(String[] args) {
    CommandLine.Invocation<Settings> invocation =
        invoke(args, terminal, line -> Settings.from(line, terminal.env()));
    if (!invocation.proceed()) {
      return invocation.exitCode();
    }
    Settings settings = invocation.value();
    if (settings.chunkSizes != null) {
      return ChunkSizeCommand.run(terminal, settings);
    }
    Trace trace = new Trace(settings.model, settings.chainMemory);
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
    return analyze(settings, trace, input);
  }

  private int analyze(Settings settings, Trace trace, String input) {
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
              + (settings.model != null ? " for --model " + settings.model : ""));
      out.flush();
      return FAILED;
    }
    Map<String, CacheInfo> caches = trace.caches();
    long bytesPerChunk = settings.bytesPerChunk;
    Map<Long, String> asked = new TreeMap<>();
    for (Quantities.Capacity capacity : settings.capacities) {
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
    if (!settings.noOpt && settings.sampling.isExact()) {
      optimal = optimal(settings, lookups, cacheOf);
    }
    List<Subject> subjects = Subject.of(analysis, optimal, caches, bytesPerChunk);
    out.print(Report.summary(header.toString(), analysis, subjects, asked));
    out.flush();
    RoutingWhatIf.Plan routing = null;
    List<RoutingWhatIf.Fleet> fleets = List.of();
    if (settings.replicas > 0) {
      long perChunk = bytesPerChunk > 0 ? bytesPerChunk : commonKvBytes(caches);
      if (settings.replicaCapacity.inBytes() && perChunk == 0) {
        return usage(
            "--replica-capacity "
                + settings.replicaCapacity.text()
                + " is in bytes, but the KV bytes of a chunk are not known: give"
                + " --bytes-per-chunk, or the capacity in chunks");
      }
      routing =
          new RoutingWhatIf.Plan(
              settings.replicas,
              settings.replicaCapacity.chunks(perChunk),
              settings.replicaCapacity.text(),
              perChunk,
              settings.policies,
              settings.loadWindow,
              settings.routingSeed);
      fleets =
          RoutingWhatIf.run(
              routing,
              lookups,
              cacheOf,
              (label, total) ->
                  Progress.counting(terminal, settings.progress, label, total, "requests"));
      out.print(RoutingWhatIf.summary(routing, fleets));
      EngineFigures.Sources sources;
      try {
        sources = engineSources(settings);
      } catch (IOException e) {
        return failed("cannot read --source-stats: " + e);
      } catch (EngineFigures.BadInputException e) {
        return failed("--source-stats " + e.getMessage());
      }
      out.print(EngineFigures.summary(sources, settings.replicas, lookups));
      out.flush();
    }
    List<Path> written = new ArrayList<>();
    try {
      if (settings.csv != null && routing != null) {
        written.add(RoutingWhatIf.writeCsv(settings.csv, routing, fleets));
      }
      if (settings.csv != null) {
        written.addAll(
            CsvFiles.write(settings.csv, analysis, subjects, settings.points, asked.keySet()));
      }
      if (settings.png != null) {
        written.addAll(Charts.write(settings.png, analysis, subjects, asked));
      }
    } catch (IOException e) {
      return failed("cannot write the output: " + e);
    }
    if (!written.isEmpty()) {
      out.println();
      for (Path file : written) {
        out.println("wrote " + file);
      }
      out.flush();
    }
    return OK;
  }

  private Analysis pass(
      Settings settings,
      List<Lookup> lookups,
      Function<Lookup, String> cacheOf,
      Windowing windowing,
      long[] capacities,
      String label) {
    MrcAnalyzer.Builder builder = MrcAnalyzer.builder().sampling(settings.sampling);
    if (capacities.length > 0) {
      builder.windows(windowing).windowCapacities(capacities);
    }
    MrcAnalyzer analyzer = builder.build();
    feed(
        settings,
        lookups,
        label,
        lookup ->
            analyzer.accept(
                lookup.timestampMs(),
                cacheOf.apply(lookup),
                lookup.keys(),
                0,
                lookup.keys().length,
                lookup.chunkSize(),
                lookup.seqLen(),
                lookup.promptTokens(),
                lookup.cachedTokens()));
    return analyzer.finish();
  }

  /**
   * The optimal curves: a pass of their own over the same lookups (OptAnalyzer keeps each model's
   * lookups and computes their OPT stack distances in {@code finish()}).
   */
  private OptimalCurves optimal(
      Settings settings, List<Lookup> lookups, Function<Lookup, String> cacheOf) {
    OptAnalyzer analyzer = new OptAnalyzer();
    feed(
        settings,
        lookups,
        "optimal",
        lookup ->
            analyzer.accept(
                cacheOf.apply(lookup),
                lookup.keys(),
                0,
                lookup.keys().length,
                lookup.chunkSize(),
                lookup.seqLen(),
                lookup.promptTokens(),
                lookup.cachedTokens()));
    return analyzer.finish();
  }

  /** Gives every lookup to {@code each} in order, with a progress line labelled {@code label}. */
  private void feed(Settings settings, List<Lookup> lookups, String label, Consumer<Lookup> each) {
    try (Progress progress =
        Progress.counting(terminal, settings.progress, label, lookups.size(), "requests")) {
      long done = 0;
      for (Lookup lookup : lookups) {
        each.accept(lookup);
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
  private static EngineFigures.Sources engineSources(Settings settings)
      throws IOException, EngineFigures.BadInputException {
    if (settings.sourceStats != null) {
      return EngineFigures.fromFile(settings.sourceStats);
    }
    if (!settings.files.isEmpty()) {
      return EngineFigures.Sources.none("lookup files read, no --source-stats given");
    }
    return EngineFigures.fromTopic(
        settings.bootstrap, Topics.withPrefix(settings.topicPrefix).sourceStats().name());
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

  private static Windowing windowing(Settings settings, List<Lookup> lookups) {
    if (settings.windowRequests > 0) {
      return Windowing.byRequests(settings.windowRequests);
    }
    if (settings.window != null) {
      return Windowing.byTime(settings.window);
    }
    long span = lookups.get(lookups.size() - 1).timestampMs() - lookups.get(0).timestampMs();
    return Windowing.byTime(Quantities.niceWindow(Duration.ofMillis(span), DEFAULT_WINDOWS));
  }

  private String read(Settings settings, Trace trace)
      throws IOException, LookupTopic.ReadException {
    if (!settings.files.isEmpty()) {
      List<Path> files = LookupFiles.expand(settings.files);
      try (Progress progress = Progress.bytes(terminal, settings.progress, "read", 0)) {
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
    String topic = Topics.withPrefix(settings.topicPrefix).chunkLookups().name();
    LookupTopic.Stats stats;
    try (Progress progress = Progress.counting(terminal, settings.progress, "read", 0, "records")) {
      stats = LookupTopic.read(settings.bootstrap, topic, trace, progress);
    }
    StringBuilder s =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "analyze: %s at %s: %s, %s, %s of values%n",
                topic,
                settings.bootstrap,
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
      StringBuilder s, Trace trace, Settings settings, List<Lookup> lookups) {
    if (settings.model != null) {
      s.append(
          String.format(
              Locale.ROOT,
              "  --model %s: %s kept, %s of other models left out%n",
              settings.model,
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
    return USAGE;
  }

  private int failed(String message) {
    terminal.err().println("prefixlog analyze: " + message);
    return FAILED;
  }

  /** The validated command line. */
  static final class Settings {
    String bootstrap;
    String topicPrefix;
    List<String> files;
    String model;
    long chainMemory;
    List<Quantities.Capacity> capacities;
    long bytesPerChunk;
    Duration window;
    long windowRequests;
    Sampling sampling;
    Path csv;
    Path png;
    int points;
    int replicas;
    Quantities.Capacity replicaCapacity;
    List<RoutingPolicy> policies;
    Duration loadWindow;
    long routingSeed;
    Path sourceStats;
    boolean noOpt;
    boolean progress;
    int[] chunkSizes;
    Path tokenizer;
    long kvBytesPerToken;
    Path deltasFile;
    ArchiveSettings archive;
    String table;

    static Settings from(CommandLine line, Map<String, String> env) throws UsageException {
      Settings s = new Settings();
      s.bootstrap = line.hostPort("bootstrap", DEFAULT_BOOTSTRAP);
      s.topicPrefix = line.string("topic-prefix", Topics.DEFAULT_PREFIX);
      s.files = line.values("file");
      for (String file : s.files) {
        if (file.isEmpty()) {
          throw new UsageException("--file needs a path");
        }
      }
      if (!s.files.isEmpty() && (line.has("bootstrap") || line.has("topic-prefix"))) {
        throw new UsageException(
            "--file reads files, --bootstrap and --topic-prefix the topic: give one or the other");
      }
      s.chainMemory = chainMemory(line);
      s.model = line.value("model").orElse(null);
      if (s.model != null && s.model.isEmpty()) {
        throw new UsageException("--model needs a model_name");
      }
      Map<String, Quantities.Capacity> capacities = new LinkedHashMap<>();
      for (String text : line.values("capacity")) {
        try {
          capacities.put(text, Quantities.capacity(text));
        } catch (IllegalArgumentException e) {
          throw new UsageException("--capacity: " + e.getMessage());
        }
      }
      s.capacities = List.copyOf(capacities.values());
      if (line.has("bytes-per-chunk")) {
        try {
          s.bytesPerChunk = Quantities.bytes(line.value("bytes-per-chunk").orElseThrow());
        } catch (IllegalArgumentException e) {
          throw new UsageException("--bytes-per-chunk: " + e.getMessage());
        }
        if (s.bytesPerChunk < 1) {
          throw new UsageException("--bytes-per-chunk must be at least 1 byte");
        }
      }
      if (line.has("window") && line.has("window-requests")) {
        throw new UsageException("--window and --window-requests: give one or the other");
      }
      if (line.has("window")) {
        try {
          s.window = Quantities.duration(line.value("window").orElseThrow());
        } catch (IllegalArgumentException e) {
          throw new UsageException("--window: " + e.getMessage());
        }
      }
      s.windowRequests = line.longValue("window-requests", 0, 1);
      double rate = line.doubleValue("sample", 1, 0);
      if (!(rate > 0 && rate <= 1)) {
        throw new UsageException(
            "--sample must be a fraction in (0, 1], e.g. 0.01 for 1%, got " + rate);
      }
      s.sampling = rate == 1 ? Sampling.none() : Sampling.atRate(rate);
      s.csv = line.value("csv").map(Path::of).orElse(null);
      s.png = line.value("png").map(Path::of).orElse(null);
      s.points = (int) Math.min(100_000, line.longValue("points", DEFAULT_POINTS, 2));
      s.noOpt = line.has("no-opt");
      s.progress = line.has("progress");
      routing(line, s);
      ChunkSizeCommand.settings(line, env, s);
      return s;
    }

    /** {@code --chain-memory}, shared with {@code export --lmcache-lookups}. */
    static long chainMemory(CommandLine line) throws UsageException {
      if (!line.has("chain-memory")) {
        return Trace.DEFAULT_CHAIN_BYTES;
      }
      try {
        return Quantities.bytes(line.value("chain-memory").orElseThrow());
      } catch (IllegalArgumentException e) {
        throw new UsageException("--chain-memory: " + e.getMessage());
      }
    }

    private static void routing(CommandLine line, Settings s) throws UsageException {
      if (!line.has("replicas")) {
        for (String option :
            List.of(
                "replica-capacity", "policies", "load-window", "routing-seed", "source-stats")) {
          if (line.has(option)) {
            throw new UsageException("--" + option + " needs --replicas");
          }
        }
        return;
      }
      long replicas = line.longValue("replicas", 0, 1);
      if (replicas > MAX_REPLICAS) {
        throw new UsageException("--replicas is at most " + MAX_REPLICAS + ", got " + replicas);
      }
      s.replicas = (int) replicas;
      String capacity =
          line.value("replica-capacity")
              .orElseThrow(
                  () ->
                      new UsageException("--replicas needs --replica-capacity (chunks or bytes)"));
      try {
        s.replicaCapacity = Quantities.capacity(capacity);
      } catch (IllegalArgumentException e) {
        throw new UsageException("--replica-capacity: " + e.getMessage());
      }
      List<RoutingPolicy> policies = new ArrayList<>();
      for (String name : line.string("policies", "").split(",")) {
        if (name.isBlank()) {
          continue;
        }
        RoutingPolicy policy;
        try {
          policy = RoutingPolicy.of(name);
        } catch (IllegalArgumentException e) {
          throw new UsageException("--policies: " + e.getMessage());
        }
        if (!policies.contains(policy)) {
          policies.add(policy);
        }
      }
      s.policies = policies.isEmpty() ? List.of(RoutingPolicy.values()) : List.copyOf(policies);
      try {
        s.loadWindow = Quantities.duration(line.string("load-window", DEFAULT_LOAD_WINDOW_TEXT));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--load-window: " + e.getMessage());
      }
      s.routingSeed = line.longValue("routing-seed", 1, Long.MIN_VALUE);
      s.sourceStats = line.value("source-stats").map(Path::of).orElse(null);
    }
  }
}
