package io.prefixlog.tools.reconstruct;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Units;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.RequestMetadata;
import io.prefixlog.tools.topic.TopicScan;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How much of the traffic capture sampling left without bodies, from the request metadata records
 * ({@code requests.metadata}, or a dump of it): those requests have no turn in the deltas, so
 * {@code reconstruct} reports them apart and never as missing.
 *
 * <p>The topic is compacted and erasure writes tombstones, so records are folded by key, the last
 * value winning and a tombstone removing the key; the count is of the keys left. The key is the
 * record key ({@code session_key/chain/seq} for a kept body, {@code session_key/ts/request_id} for
 * a sampled-out one); a value-only dump line is given the same key from its value. Only the
 * session's records count when {@code session} is set. Memory holds one entry per request key, no
 * value.
 */
final class SampledOut {
  private final String sessionPrefix;
  private final Map<String, Boolean> sampledOutByKey = new HashMap<>();
  private long unreadable;

  /**
   * @param session the session_key {@code --session} restricts to, or null for all sessions
   */
  SampledOut(String session) {
    this.sessionPrefix = session == null ? null : session + "/";
  }

  /**
   * What the metadata said.
   *
   * @param requests requests with a metadata record
   * @param sampledOut those whose body capture sampling left out
   * @param sessions sessions with at least one sampled-out request
   * @param unreadable records that were not request metadata (ignored)
   */
  record Tally(long requests, long sampledOut, long sessions, long unreadable) {
    /** The summary line. */
    String line() {
      String share =
          String.format(
              Locale.ROOT, "%.1f %%", requests == 0 ? 0.0 : 100.0 * sampledOut / requests);
      StringBuilder s =
          new StringBuilder("sampled out: ")
              .append(Units.count(sampledOut, "request"))
              .append(" of ")
              .append(Units.count(requests))
              .append(" (")
              .append(share)
              .append(") in ")
              .append(Units.count(sessions, "session"))
              .append(": metadata only, not missing");
      if (unreadable > 0) {
        s.append(" (")
            .append(Units.count(unreadable, "record"))
            .append(" of the metadata input ignored: not request metadata)");
      }
      return s.append('\n').toString();
    }
  }

  /** One record of the topic: its key and value, null for a tombstone. */
  void add(String key, byte[] value) {
    if (value == null) {
      if (key != null) {
        sampledOutByKey.remove(key);
      }
      return;
    }
    RequestMetadata metadata;
    try {
      metadata = Json.mapper().readValue(value, RequestMetadata.class);
    } catch (IOException e) {
      unreadable++;
      return;
    }
    put(key, metadata);
  }

  /**
   * A dump of the topic, one line per record: a record value, or a kcat {@code -J} envelope whose
   * {@code null} payload is a tombstone. Blank and {@code null} lines (tombstones without their
   * key) cannot be applied and are skipped.
   */
  void addDump(Path file) throws IOException {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        String text = line.strip();
        if (text.isEmpty() || text.equals("null")) {
          continue;
        }
        addLine(text);
      }
    }
  }

  private void addLine(String line) {
    JsonNode node;
    try {
      node = Json.mapper().readTree(line);
    } catch (IOException e) {
      unreadable++;
      return;
    }
    if (node == null || !node.isObject()) {
      unreadable++;
      return;
    }
    try {
      if (node.has("payload")) {
        JsonNode key = node.path("key");
        JsonNode payload = node.get("payload");
        String k = key.isTextual() ? key.textValue() : null;
        if (payload.isNull()) {
          add(k, null);
          return;
        }
        RequestMetadata metadata =
            payload.isTextual()
                ? Json.mapper().readValue(payload.textValue(), RequestMetadata.class)
                : Json.mapper().treeToValue(payload, RequestMetadata.class);
        put(k, metadata);
      } else {
        put(null, Json.mapper().treeToValue(node, RequestMetadata.class));
      }
    } catch (IOException e) {
      unreadable++;
    }
  }

  private void put(String key, RequestMetadata metadata) {
    if (metadata.sessionKey() == null || metadata.requestId() == null) {
      unreadable++;
      return;
    }
    String k = key != null ? key : keyOf(metadata);
    if (sessionPrefix != null && !k.startsWith(sessionPrefix)) {
      return;
    }
    sampledOutByKey.put(k, metadata.bodyOmitted() != null);
  }

  /** The record key the stream app gives the record, as {@link RequestMetadata} documents it. */
  private static String keyOf(RequestMetadata m) {
    return m.turn() != null ? m.turn() : m.sessionKey() + "/" + m.ts() + "/" + m.requestId();
  }

  /**
   * Reads {@code topic} to its end offsets.
   *
   * @throws TopicScan.ScanException when it cannot be read (absent when written by a stream app
   *     older than capture sampling)
   */
  void addTopic(String bootstrap, String topic, Progress progress)
      throws TopicScan.ScanException, IOException {
    TopicScan.readToEnd(
        bootstrap,
        topic,
        "prefixlog-reconstruct-metadata",
        1024 * 1024,
        "--metadata-file reads a dump",
        progress,
        record -> add(record.key(), record.value()));
  }

  Tally tally() {
    long sampledOut = 0;
    Set<String> sessions = new HashSet<>();
    for (Map.Entry<String, Boolean> e : sampledOutByKey.entrySet()) {
      if (e.getValue()) {
        sampledOut++;
        String key = e.getKey();
        int slash = key.indexOf('/');
        sessions.add(slash < 0 ? key : key.substring(0, slash));
      }
    }
    return new Tally(sampledOutByKey.size(), sampledOut, sessions.size(), unreadable);
  }
}
