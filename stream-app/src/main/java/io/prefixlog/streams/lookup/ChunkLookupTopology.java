package io.prefixlog.streams.lookup;

import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.TopicSinks;
import java.util.Objects;
import org.apache.kafka.streams.Topology;

/**
 * Adds the chunk-hash lookups to a topology, under the session-delta processor:
 *
 * <pre>
 * session-delta ─▶ chunk-lookup ─▶ chunk.lookups   (key session_key/chain/seq, partitioned by session)
 * </pre>
 *
 * <p>The processor is stateless. It receives each stored turn's validated request from its parent
 * (see {@link ChunkLookupProcessor}).
 */
public final class ChunkLookupTopology {
  public static final String CHUNK_LOOKUP_PROCESSOR = "chunk-lookup";
  public static final String CHUNK_LOOKUPS_SINK = "chunk-lookups-sink";

  /**
   * 256 bytes of the rendered prompt: about 64 tokens of English or JSON, a quarter of LMCache's
   * default chunk of 256 tokens, four of vLLM's 16-token blocks. Fine enough that short chat
   * requests still yield chunks and that the unhashed tail of a request is at most 255 bytes;
   * coarse enough that a record stays near a tenth of its body (21 bytes of JSON per hash: 9–10 %
   * on the agentic corpora, ~1.2 KB for a 13 KB request).
   */
  public static final int DEFAULT_CHUNK_SIZE_BYTES = 256;

  /** Below this, records grow past twice the body (21 bytes of JSON per hash). */
  public static final int MIN_CHUNK_SIZE_BYTES = 16;

  public static final int MAX_CHUNK_SIZE_BYTES = 1 << 20;

  private ChunkLookupTopology() {}

  /**
   * Adds the {@value #CHUNK_LOOKUP_PROCESSOR} processor under {@code sourceNodeName} and its sink
   * {@value #CHUNK_LOOKUPS_SINK} to {@code config.topics().chunkLookups()}.
   *
   * @param sourceNodeName the session-delta processor, which forwards each stored turn's {@code
   *     ValidatedRequest} under its turn key
   * @param chunkSizeBytes bytes of rendered prompt per chunk, from {@value #MIN_CHUNK_SIZE_BYTES}
   *     to {@value #MAX_CHUNK_SIZE_BYTES}
   * @return {@code topology}
   */
  public static Topology addTo(
      Topology topology,
      StreamAppConfig config,
      StreamAppMetrics metrics,
      String sourceNodeName,
      int chunkSizeBytes) {
    Objects.requireNonNull(topology, "topology");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(metrics, "metrics");
    Objects.requireNonNull(sourceNodeName, "sourceNodeName");
    if (chunkSizeBytes < MIN_CHUNK_SIZE_BYTES || chunkSizeBytes > MAX_CHUNK_SIZE_BYTES) {
      throw new IllegalArgumentException(
          "chunkSizeBytes must be from "
              + MIN_CHUNK_SIZE_BYTES
              + " to "
              + MAX_CHUNK_SIZE_BYTES
              + ", got "
              + chunkSizeBytes);
    }
    topology.addProcessor(
        CHUNK_LOOKUP_PROCESSOR,
        new ChunkLookupSupplier(config, new ChunkLookupMetrics(metrics.registry()), chunkSizeBytes),
        sourceNodeName);
    TopicSinks.add(
        topology,
        CHUNK_LOOKUPS_SINK,
        config.topics().chunkLookups(),
        new SessionOfValuePartitioner(),
        CHUNK_LOOKUP_PROCESSOR);
    return topology;
  }
}
