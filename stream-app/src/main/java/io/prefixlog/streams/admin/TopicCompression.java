package io.prefixlog.streams.admin;

import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/**
 * How the stream app's records are compressed: cheaply by the stream thread, well by the broker.
 *
 * <p>Kafka Streams gives a stream thread one producer, so one codec, for everything it writes: the
 * repartition topic's raw events (hundreds of KB each for an agent's turn, on the hot path) as well
 * as the deltas (a few KB, kept for years). The producer uses lz4, about twice zstd -3's speed on
 * the stream thread. Each topic that is kept says {@code compression.type=zstd} with its level, and
 * the broker recompresses a batch whose codec is not the topic's: so the deltas are stored at zstd
 * level {@code PREFIXLOG_OUTPUT_ZSTD_LEVEL} (9 by default: ~6 % fewer bytes than level 3 on long
 * agent sessions, {@code AgentTrafficBenchmark}), at the broker's cost of a few KB a turn. The
 * repartition topic keeps the producer's lz4 (the broker takes it as it comes). Chunk lookups are
 * stored at level 3: their random hashes compress no better, and were measured larger, at higher
 * levels; the changelogs too, to keep the broker's recompression of whole bases cheap.
 */
public final class TopicCompression {
  /** The codec of the stream app's producer. */
  public static final String PRODUCER_CODEC = "lz4";

  /** The zstd level of the changelogs and the chunk lookups. */
  public static final int LIGHT_ZSTD_LEVEL = 3;

  private TopicCompression() {}

  /** The topic settings that make the broker store a topic in zstd at {@code level}. */
  public static Map<String, String> zstd(int level) {
    return Map.of(
        TopicConfig.COMPRESSION_TYPE_CONFIG,
        "zstd",
        TopicConfig.COMPRESSION_ZSTD_LEVEL_CONFIG,
        Integer.toString(level));
  }
}
