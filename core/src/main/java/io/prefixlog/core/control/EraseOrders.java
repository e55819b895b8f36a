package io.prefixlog.core.control;

import io.prefixlog.core.request.Rejection;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * Reads an {@link EraseRequest} from a control record's value and checks it against the record's
 * key: a session order must be keyed by its session, since the key is what brought it to the task
 * that owns the session's state. A bad order is a {@link Rejection} ({@value #INVALID_CONTROL}),
 * which the caller dead-letters: it never fails a stream thread, and it never erases anything.
 */
public final class EraseOrders {
  public static final String INVALID_CONTROL = "invalid_control";

  private static final Pattern ERASE_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

  private EraseOrders() {}

  /** The order or why it was rejected; exactly one of the two is set. */
  public record Outcome(EraseRequest order, Rejection rejected) {}

  /** A session order from {@code requests.raw}, keyed by {@code key}. */
  public static Outcome session(String key, byte[] value) {
    Outcome read = read(value);
    if (read.rejected() != null) {
      return read;
    }
    EraseRequest order = read.order();
    if (order.sessionKey() == null || order.sessionKey().isEmpty()) {
      return reject("session_key is missing: an order on the raw requests names its session");
    }
    if (order.kvSessionIdSha256() != null) {
      return reject("kv_session_id_sha256 belongs on kv.events, not with a session_key");
    }
    if (!order.sessionKey().equals(key)) {
      return reject("the record key is not the order's session_key");
    }
    if (order.before() != null && order.before() < 0) {
      return reject("before is negative");
    }
    return read;
  }

  /** A KV order from {@code kv.events}, keyed by a source. */
  public static Outcome kv(String key, byte[] value) {
    Outcome read = read(value);
    if (read.rejected() != null) {
      return read;
    }
    EraseRequest order = read.order();
    if (key == null || key.isEmpty()) {
      return reject("the record has no key: a KV order is keyed by its source");
    }
    if (order.sessionKey() != null || order.before() != null) {
      return reject("session_key and before belong on requests.raw, not on kv.events");
    }
    if (order.kvSessionIdSha256() == null || order.kvSessionIdSha256().isEmpty()) {
      return reject("kv_session_id_sha256 is missing or empty");
    }
    for (String digest : order.kvSessionIdSha256()) {
      if (digest == null || !SHA256_HEX.matcher(digest).matches()) {
        return reject("kv_session_id_sha256 holds something that is not a SHA-256 in hex");
      }
    }
    return read;
  }

  private static Outcome read(byte[] value) {
    if (value == null) {
      return reject("the control record has no value");
    }
    EraseRequest order;
    try {
      order = Json.mapper().readValue(value, EraseRequest.class);
    } catch (IOException e) {
      // The parser's message may quote the input: name the exception type only.
      return reject("not an erase request: " + e.getClass().getSimpleName());
    }
    if (order == null) {
      return reject("not an erase request: null");
    }
    if (order.schemaVersion() == null || order.schemaVersion() != EraseRequest.SCHEMA_VERSION) {
      return reject("schema_version must be " + EraseRequest.SCHEMA_VERSION);
    }
    if (order.eraseId() == null || !ERASE_ID.matcher(order.eraseId()).matches()) {
      return reject("erase_id is missing or not 1-128 characters of [A-Za-z0-9._-]");
    }
    return new Outcome(order, null);
  }

  private static Outcome reject(String detail) {
    return new Outcome(null, new Rejection(INVALID_CONTROL, detail));
  }
}
