package io.prefixlog.core.kv;

import java.util.Objects;

/**
 * One stream of KV-event batches: an engine publisher (one per data-parallel rank) and its ZMQ
 * topic. Sequence numbers, gaps, restarts and blocks are all per source.
 *
 * <p>The id, and so the record key on {@code kv.events}, is {@code <endpoint>|dp<rank>|<topic>},
 * for example {@code tcp://10.0.3.17:5558|dp1|kv} or {@code tcp://10.0.3.17:5557|dp0|} (vLLM's
 * default topic is empty). {@code endpoint} is the address actually connected to, i.e. with vLLM's
 * data-parallel port offset already applied (rank r of {@code tcp://h:5557} is {@code
 * tcp://h:(5557+r)}); the rank is kept in the id as well, so that two ranks never share an id
 * whatever the endpoint scheme. The endpoint may not contain {@code |}, so an id splits one way
 * only: the endpoint up to the first {@code |}, then {@code dp} and the rank, then the topic (which
 * may itself contain {@code |}).
 *
 * @param id the source id, the record key
 * @param endpoint the ZMQ PUB endpoint subscribed to
 * @param dataParallelRank the data-parallel rank the endpoint belongs to (from configuration)
 * @param topic the ZMQ topic subscribed to, as text (may be empty)
 */
public record KvSource(String id, String endpoint, int dataParallelRank, String topic) {

  public KvSource {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(topic, "topic");
    if (endpoint.isBlank() || endpoint.indexOf('|') >= 0) {
      throw new IllegalArgumentException("endpoint must be non-blank without '|': " + endpoint);
    }
    if (dataParallelRank < 0) {
      throw new IllegalArgumentException("dataParallelRank must be >= 0: " + dataParallelRank);
    }
    if (!id.equals(idOf(endpoint, dataParallelRank, topic))) {
      throw new IllegalArgumentException(
          "id " + id + " is not " + idOf(endpoint, dataParallelRank, topic));
    }
  }

  /**
   * The source of {@code endpoint} (port offset already applied), {@code rank} and {@code topic}.
   */
  public static KvSource of(String endpoint, int rank, String topic) {
    return new KvSource(idOf(endpoint, rank, topic), endpoint, rank, topic);
  }

  /** {@code <endpoint>|dp<rank>|<topic>}. */
  public static String idOf(String endpoint, int rank, String topic) {
    return endpoint + "|dp" + rank + "|" + topic;
  }
}
