package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Sampling;
import io.prefixlog.analysis.routing.RoutingPolicy;
import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.archive.ArchiveOptions;
import io.prefixlog.tools.topic.TopicOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code prefixlog analyze}: reads the command line into an {@link AnalyzeRequest} and runs the
 * {@link AnalyzeService}, which prints the report.
 */
public final class AnalyzeCommand implements Command {
  private static final List<Option> BASE_OPTIONS =
      List.of(
          TopicOptions.BOOTSTRAP,
          TopicOptions.topicPrefix(
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
              "about " + AnalyzeRequest.DEFAULT_WINDOWS + " windows over the trace",
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
              Integer.toString(AnalyzeRequest.DEFAULT_POINTS),
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
              AnalyzeRequest.DEFAULT_LOAD_WINDOW_TEXT,
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
    return runService(
        args,
        terminal,
        Settings::from,
        request -> new AnalyzeService(terminal).run(request).outcome());
  }

  /** The command line read into a request. */
  static final class Settings {
    private Settings() {}

    static AnalyzeRequest from(CommandLine line, Map<String, String> env) throws UsageException {
      AnalyzeRequest.Builder s = AnalyzeRequest.builder();
      s.bootstrap = TopicOptions.bootstrap(line);
      s.topicPrefix = TopicOptions.topicPrefix(line);
      s.files = line.values("file");
      for (String file : s.files) {
        if (file.isEmpty()) {
          throw new UsageException("--file needs a path");
        }
      }
      if (!s.files.isEmpty() && TopicOptions.given(line)) {
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
      s.points =
          (int) Math.min(100_000, line.longValue("points", AnalyzeRequest.DEFAULT_POINTS, 2));
      s.noOpt = line.has("no-opt");
      s.progress = line.has("progress");
      routing(line, s);
      ChunkSizeCommand.settings(line, env, s);
      return s.build();
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

    private static void routing(CommandLine line, AnalyzeRequest.Builder s) throws UsageException {
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
      if (replicas > AnalyzeRequest.MAX_REPLICAS) {
        throw new UsageException(
            "--replicas is at most " + AnalyzeRequest.MAX_REPLICAS + ", got " + replicas);
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
        s.loadWindow =
            Quantities.duration(
                line.string("load-window", AnalyzeRequest.DEFAULT_LOAD_WINDOW_TEXT));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--load-window: " + e.getMessage());
      }
      s.routingSeed = line.longValue("routing-seed", 1, Long.MIN_VALUE);
      s.sourceStats = line.value("source-stats").map(Path::of).orElse(null);
    }
  }
}
