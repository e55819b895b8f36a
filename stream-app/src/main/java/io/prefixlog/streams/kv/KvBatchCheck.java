package io.prefixlog.streams.kv;

import io.prefixlog.core.request.Rejection;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Reads one {@code kv.events} record and checks what the index relies on, before anything is
 * applied: a batch is taken whole or rejected whole, so a bad record never half-changes the index.
 * The checks follow the KV event batch schema where the index depends on a field; anything else (an
 * unknown event type, extra fields) passes.
 */
final class KvBatchCheck {
  /** Longer names are not names: the index keeps them, so they are bounded. */
  static final int MAX_TEXT_CHARS = 1024;

  /**
   * 64 bytes, twice vLLM's largest digest (sha256): the index keeps hashes, so they are bounded.
   */
  static final int MAX_HASH_HEX = 128;

  private static final JsonSerde<KvEventBatch> SERDE = JsonSerde.of(KvEventBatch.class);

  /** Either a batch or why it was rejected. */
  record Outcome(KvEventBatch batch, Rejection rejected) {}

  private KvBatchCheck() {}

  static Outcome check(String key, byte[] value) {
    if (value == null) {
      return reject(Rejection.INVALID_JSON, "the record has no value");
    }
    KvEventBatch batch;
    try {
      batch = SERDE.fromBytes(value);
    } catch (SerializationException e) {
      return reject(Rejection.INVALID_JSON, e.getMessage());
    }
    if (batch == null) {
      return reject(Rejection.INVALID_JSON, "the value is JSON null");
    }
    if (batch.schemaVersion() == null) {
      return reject(Rejection.MISSING_FIELD, "schema_version is missing");
    }
    if (batch.schemaVersion() != KvEventBatch.SCHEMA_VERSION) {
      return reject(
          Rejection.UNKNOWN_SCHEMA_VERSION,
          "schema_version " + batch.schemaVersion() + " is not " + KvEventBatch.SCHEMA_VERSION);
    }
    if (batch.source() == null || batch.source().isEmpty()) {
      return reject(Rejection.MISSING_FIELD, "source is missing");
    }
    if (!batch.source().equals(key)) {
      return reject(Rejection.KEY_MISMATCH, "the record key is not the batch's source");
    }
    if (batch.seq() == null || batch.ts() == null) {
      return reject(Rejection.MISSING_FIELD, (batch.seq() == null ? "seq" : "ts") + " is missing");
    }
    if (batch.seq() < 0 || batch.ts() < 0) {
      return reject(Rejection.INVALID_FIELD, "seq and ts must be >= 0");
    }
    String marker = batch.marker();
    List<KvEvent> events = batch.events();
    if (marker != null) {
      if (!marker.equals(KvEventBatch.MARKER_GAP) && !marker.equals(KvEventBatch.MARKER_RESTART)) {
        return reject(Rejection.INVALID_FIELD, "marker " + marker + " is neither gap nor restart");
      }
      if (events != null && !events.isEmpty()) {
        return reject(Rejection.INVALID_FIELD, "a " + marker + " marker carries events");
      }
      return new Outcome(batch, null);
    }
    if (events == null || events.isEmpty()) {
      return reject(Rejection.MISSING_FIELD, "a batch without events");
    }
    for (int i = 0; i < events.size(); i++) {
      String problem = problem(events.get(i));
      if (problem != null) {
        String reason =
            problem.endsWith("missing") ? Rejection.MISSING_FIELD : Rejection.INVALID_FIELD;
        return reject(reason, "event " + i + ": " + problem);
      }
    }
    return new Outcome(batch, null);
  }

  private static String problem(KvEvent event) {
    if (event == null || event.type() == null || event.type().isEmpty()) {
      return "type is missing";
    }
    boolean stored = event.type().equals(KvEvent.BLOCK_STORED);
    if (!stored && !event.type().equals(KvEvent.BLOCK_REMOVED)) {
      return null; // AllBlocksCleared has no fields; other types are not indexed
    }
    if (event.blockHashes() == null || event.blockHashes().isEmpty()) {
      return "block_hashes is missing";
    }
    for (String hash : event.blockHashes()) {
      if (!isHex(hash) || hash.length() > MAX_HASH_HEX) {
        return "a block hash is not lower-case hex of 1 to 64 whole bytes";
      }
    }
    if (stored
        && event.parentBlockHash() != null
        && (!isHex(event.parentBlockHash()) || event.parentBlockHash().length() > MAX_HASH_HEX)) {
      return "parent_block_hash is not lower-case hex of 1 to 64 whole bytes";
    }
    if (event.groupIdx() != null && event.groupIdx() < 0) {
      return "group_idx is negative";
    }
    if (stored && event.loraId() != null && event.loraId() < 0) {
      return "lora_id is negative";
    }
    for (String text : new String[] {event.medium(), event.loraName(), event.sessionId()}) {
      if (text != null && text.length() > MAX_TEXT_CHARS) {
        return "medium, lora_name or session_id is longer than " + MAX_TEXT_CHARS + " characters";
      }
    }
    if (stored && event.tokenCount() != null && event.tokenCount() < 0) {
      return "token_count is negative";
    }
    if (stored && event.blockSize() != null && event.blockSize() < 1) {
      return "block_size is below 1";
    }
    return null;
  }

  /** Lower-case hex of whole bytes, as the schema's block hash pattern. */
  static boolean isHex(String s) {
    if (s == null || s.isEmpty() || (s.length() & 1) != 0) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static Outcome reject(String reason, String detail) {
    return new Outcome(null, new Rejection(reason, detail));
  }
}
