package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.Sampling;
import io.prefixlog.analysis.routing.RoutingPolicy;
import io.prefixlog.archive.ArchiveSettings;
import io.prefixlog.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What {@link AnalyzeService} analyses and how: {@code prefixlog analyze}'s options, typed. A
 * {@code null} or zero component is an option not given; {@link #builder()} starts from the
 * command's defaults, so a caller sets only what it needs.
 *
 * @param bootstrap Kafka bootstrap servers of the lookups (and deltas) topic
 * @param topicPrefix prefix of every topic name
 * @param files lookup files read instead of the topic; empty to read the topic
 * @param model the only model_name analysed, or {@code null} for all
 * @param chainMemory heap for resolving version 2 lookup records, in bytes
 * @param capacities the capacities to report and follow over time; empty for the defaults
 * @param bytesPerChunk KV-cache bytes a chunk occupies, or 0 when unknown
 * @param window width of the rolling hit rate's windows, or {@code null}
 * @param windowRequests windows of this many requests instead, or 0
 * @param sampling SHARDS sampling of the chunk hashes
 * @param csv the directory of the CSV files, or {@code null}
 * @param png the directory of the charts, or {@code null}
 * @param points capacities per model in curve.csv
 * @param replicas replicas of the routing what-if, or 0 for none
 * @param replicaCapacity each replica's cache, with {@code replicas}
 * @param policies the routing policies compared, with {@code replicas}
 * @param loadWindow the span of a replica's load, with {@code replicas}
 * @param routingSeed the random policy's seed, with {@code replicas}
 * @param sourceStats a dump of the KV sources' statistics, or {@code null}
 * @param noOpt whether to skip the optimal (Belady/MIN) bound
 * @param progress whether to show progress bars even when stderr is not a terminal
 * @param chunkSizes the sizes of the chunk-size what-if, or {@code null} to analyse lookups
 * @param tokenizer a tokenizer.json for the what-if, or {@code null} to count bytes
 * @param kvBytesPerToken KV-cache bytes a token occupies in the what-if, or 0
 * @param deltasFile a kcat dump of the deltas topic for the what-if, or {@code null}
 * @param archive the archive the what-if rebuilds from, or {@code null}
 * @param table the archived delta table, with {@code archive}
 */
public record AnalyzeRequest(
    String bootstrap,
    String topicPrefix,
    List<String> files,
    String model,
    long chainMemory,
    List<Quantities.Capacity> capacities,
    long bytesPerChunk,
    Duration window,
    long windowRequests,
    Sampling sampling,
    Path csv,
    Path png,
    int points,
    int replicas,
    Quantities.Capacity replicaCapacity,
    List<RoutingPolicy> policies,
    Duration loadWindow,
    long routingSeed,
    Path sourceStats,
    boolean noOpt,
    boolean progress,
    int[] chunkSizes,
    Path tokenizer,
    long kvBytesPerToken,
    Path deltasFile,
    ArchiveSettings archive,
    String table) {
  public static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";

  /** Windows of the rolling hit rate when no span is given: about this many over the trace. */
  static final int DEFAULT_WINDOWS = 60;

  static final int DEFAULT_POINTS = 100;

  static final String DEFAULT_LOAD_WINDOW_TEXT = "10s";

  /** Each replica costs a few arrays and a column in the per-replica table. */
  static final int MAX_REPLICAS = 4096;

  public AnalyzeRequest {
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    files = List.copyOf(files);
    capacities = List.copyOf(capacities);
    Objects.requireNonNull(sampling, "sampling");
    if (replicas > 0) {
      Objects.requireNonNull(replicaCapacity, "replicaCapacity");
      policies = List.copyOf(policies);
      Objects.requireNonNull(loadWindow, "loadWindow");
    }
    chunkSizes = chunkSizes == null ? null : chunkSizes.clone();
  }

  /** The sizes of the chunk-size what-if (a copy), or {@code null}. */
  @Override
  public int[] chunkSizes() {
    return chunkSizes == null ? null : chunkSizes.clone();
  }

  /** A request with the command's defaults: the lookups topic at 127.0.0.1:9092, no files. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a request. The command line fills its fields directly (it has validated them); a caller
   * elsewhere uses the methods.
   */
  public static final class Builder {
    String bootstrap = DEFAULT_BOOTSTRAP;
    String topicPrefix = Topics.DEFAULT_PREFIX;
    List<String> files = List.of();
    String model;
    long chainMemory = Trace.DEFAULT_CHAIN_BYTES;
    List<Quantities.Capacity> capacities = List.of();
    long bytesPerChunk;
    Duration window;
    long windowRequests;
    Sampling sampling = Sampling.none();
    Path csv;
    Path png;
    int points = DEFAULT_POINTS;
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

    private Builder() {}

    /** Reads the lookups topic {@code <topicPrefix>chunk.lookups} at {@code bootstrap}. */
    public Builder topic(String bootstrap, String topicPrefix) {
      this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
      this.topicPrefix = Objects.requireNonNull(topicPrefix, "topicPrefix");
      return this;
    }

    /** Reads these lookup files (or directories of them) instead of the topic. */
    public Builder files(List<Path> files) {
      this.files = files.stream().map(Path::toString).toList();
      return this;
    }

    /** Writes curve.csv, rolling.csv (and routing.csv) into {@code dir}. */
    public Builder csv(Path dir) {
      this.csv = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /** Writes the charts into {@code dir}. */
    public Builder png(Path dir) {
      this.png = Objects.requireNonNull(dir, "dir");
      return this;
    }

    /**
     * Adds the routing what-if: {@code replicas} LRU caches of {@code chunks} chunks each, under
     * every routing policy, with the command's load window and seed.
     */
    public Builder routing(int replicas, long chunks) {
      if (replicas < 1 || replicas > MAX_REPLICAS) {
        throw new IllegalArgumentException(
            "replicas must be 1 to " + MAX_REPLICAS + ", got " + replicas);
      }
      if (chunks < 1) {
        throw new IllegalArgumentException("chunks must be at least 1, got " + chunks);
      }
      this.replicas = replicas;
      this.replicaCapacity = Quantities.capacity(Long.toString(chunks));
      this.policies = List.of(RoutingPolicy.values());
      this.loadWindow = Quantities.duration(DEFAULT_LOAD_WINDOW_TEXT);
      this.routingSeed = 1;
      return this;
    }

    public AnalyzeRequest build() {
      return new AnalyzeRequest(
          bootstrap,
          topicPrefix,
          files,
          model,
          chainMemory,
          capacities,
          bytesPerChunk,
          window,
          windowRequests,
          sampling,
          csv,
          png,
          points,
          replicas,
          replicaCapacity,
          policies,
          loadWindow,
          routingSeed,
          sourceStats,
          noOpt,
          progress,
          chunkSizes,
          tokenizer,
          kvBytesPerToken,
          deltasFile,
          archive,
          table);
    }
  }
}
