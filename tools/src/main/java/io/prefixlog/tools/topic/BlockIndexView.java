package io.prefixlog.tools.topic;

import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import java.io.IOException;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The blocks the KV block index says an engine holds now: the hashes of the live entries of the
 * compacted index topic, as the demo checks compare them with the engine's own cache.
 */
public final class BlockIndexView {
  private BlockIndexView() {}

  /**
   * @param source which sources to count (their {@code source} id)
   * @return the block hashes (16 hex digits), sorted
   */
  public static Set<String> residentHashes(
      String bootstrap, String topic, String clientId, Predicate<String> source)
      throws TopicScan.ScanException, IOException {
    Set<String> hashes = new TreeSet<>();
    JsonSerde<BlockIndexEntry> serde = JsonSerde.of(BlockIndexEntry.class);
    for (byte[] value : CompactedView.read(bootstrap, topic, clientId).values()) {
      BlockIndexEntry entry = serde.fromBytes(value);
      if (source.test(entry.source())) {
        hashes.add(entry.hash());
      }
    }
    return hashes;
  }
}
