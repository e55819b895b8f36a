package io.prefixlog.tools.erase;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.cli.Progress;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What a turn-keyed output topic ({@code session.deltas}, {@code chunk.lookups}) holds of the
 * selected sessions: every key of theirs with the partition it lives in and whether its latest
 * value is a tombstone, and per chain the time of its last turn (from the delta records' {@code
 * ts}; a chain is the key's middle part, empty for the version 2 keys {@code session_key/seq}).
 */
final class TurnScan {
  /** One key of a selected session. */
  record Key(String key, String session, String chain, int partition, boolean live, long values) {}

  private final Map<String, Key> keys = new TreeMap<>();
  private final Map<String, Long> chainLastTs = new HashMap<>();
  private long records;

  private TurnScan() {}

  /**
   * Reads {@code topic} to its end.
   *
   * @param lookupSessionField also select records whose key is not a turn key (the lookups of
   *     versions keyed by request id) by the {@code session_key} field of their value
   */
  static TurnScan read(
      String bootstrap,
      String topic,
      Selection selection,
      boolean lookupSessionField,
      Progress progress)
      throws TopicScan.ScanException, IOException {
    TurnScan scan = new TurnScan();
    TopicScan.readToEnd(
        bootstrap,
        topic,
        "prefixlog-erase",
        64 << 20,
        "no alternative: erasing needs the broker",
        progress,
        record -> scan.accept(record, selection, lookupSessionField));
    return scan;
  }

  private void accept(
      ConsumerRecord<String, byte[]> record, Selection selection, boolean lookupSessionField)
      throws IOException {
    records++;
    String key = record.key();
    String session = selection.sessionOf(key);
    JsonNode value = null;
    // Only keys without a '/' can be the request ids of older lookups: turn keys of other
    // sessions are not parsed.
    if (session == null
        && lookupSessionField
        && record.value() != null
        && key != null
        && key.indexOf('/') < 0) {
      value = Json.mapper().readTree(record.value());
      String inValue = value.path("session_key").asText(null);
      session = inValue != null && selection.keys().contains(inValue) ? inValue : null;
    }
    if (session == null) {
      return;
    }
    String chain = chainOf(key, session);
    boolean live = record.value() != null;
    Key before = keys.get(key);
    keys.put(
        key,
        new Key(
            key,
            session,
            chain,
            record.partition(),
            live,
            (before == null ? 0 : before.values()) + (live ? 1 : 0)));
    if (live) {
      if (value == null) {
        value = Json.mapper().readTree(record.value());
      }
      long ts = value.path("ts").asLong(-1);
      if (ts >= 0) {
        chainLastTs.merge(session + "/" + chain, ts, Math::max);
      }
    }
  }

  /** The chain part of a turn key: {@code session/chain/seq} → chain; anything else → "". */
  static String chainOf(String key, String session) {
    String rest = key.startsWith(session + "/") ? key.substring(session.length() + 1) : "";
    int slash = rest.indexOf('/');
    return slash < 0 ? "" : rest.substring(0, slash);
  }

  /** Every key of the selected sessions, sorted. */
  Map<String, Key> keys() {
    return keys;
  }

  /** Records read in all. */
  long records() {
    return records;
  }

  /**
   * The chains to erase per session: all of them, or with {@code before} those whose last turn came
   * before it (a chain with no turn found, its records already gone, counts as old).
   */
  Map<String, Map<String, Boolean>> chains(Selection selection) {
    Map<String, Map<String, Boolean>> chains = new LinkedHashMap<>();
    for (Key key : keys.values()) {
      Long last = chainLastTs.get(key.session() + "/" + key.chain());
      boolean erase = selection.before() == null || last == null || last < selection.before();
      chains.computeIfAbsent(key.session(), s -> new TreeMap<>()).put(key.chain(), erase);
    }
    return chains;
  }
}
