package io.prefixlog.core.request;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.io.IOException;
import java.util.Optional;

/**
 * Checks a raw request event (schema version 1) as it arrives from any producer: the bridge, a
 * middleware, kcat. The outcome is either a {@link ValidatedRequest} whose body bytes match the
 * declared length and SHA-256, or a {@link Rejection} with a reason code.
 */
public final class RawEventValidator {
  private final long maxBodyBytes;

  /**
   * @param maxBodyBytes the capture limit: longer bodies are rejected as {@code body_too_large}
   */
  public RawEventValidator(long maxBodyBytes) {
    if (maxBodyBytes < 1) {
      throw new IllegalArgumentException("maxBodyBytes must be >= 1, got " + maxBodyBytes);
    }
    this.maxBodyBytes = maxBodyBytes;
  }

  /** The outcome: exactly one of the two is present. */
  public record Outcome(ValidatedRequest accepted, Rejection rejected) {
    static Outcome reject(String reason, String detail) {
      return new Outcome(null, new Rejection(reason, detail));
    }
  }

  /**
   * @param key the record key it arrived with (must equal {@code session_key}), or null when the
   *     input has no key (the ingest endpoint)
   * @param value the record value
   */
  public Outcome validate(String key, byte[] value) {
    if (value == null) {
      return Outcome.reject(Rejection.INVALID_JSON, "the record has no value (a tombstone)");
    }
    JsonNode tree;
    try {
      tree = Json.mapper().readTree(value);
    } catch (IOException e) {
      return Outcome.reject(
          Rejection.INVALID_JSON, JsonSerde.describeReadFailure(RawRequestEvent.class, e));
    }
    if (tree == null || !tree.isObject()) {
      return Outcome.reject(Rejection.INVALID_JSON, "the value is not a JSON object");
    }
    JsonNode version = tree.get("schema_version");
    if (version == null) {
      return Outcome.reject(Rejection.MISSING_FIELD, "schema_version is missing");
    }
    if (!version.isIntegralNumber() || version.asInt() != RawRequestEvent.SCHEMA_VERSION) {
      return Outcome.reject(
          Rejection.UNKNOWN_SCHEMA_VERSION,
          "schema_version " + version + " is not " + RawRequestEvent.SCHEMA_VERSION);
    }
    Optional<Rejection> fieldProblem = checkFieldTypes(tree);
    if (fieldProblem.isPresent()) {
      return new Outcome(null, fieldProblem.get());
    }
    RawRequestEvent event;
    try {
      event = Json.mapper().treeToValue(tree, RawRequestEvent.class);
    } catch (IOException e) {
      return Outcome.reject(
          Rejection.INVALID_FIELD, JsonSerde.describeReadFailure(RawRequestEvent.class, e));
    }
    if (key != null && !key.equals(event.sessionKey())) {
      return Outcome.reject(
          Rejection.KEY_MISMATCH,
          "the record key is not the event's session_key, so the session could span partitions");
    }
    if (event.bodyLen() > maxBodyBytes) {
      return Outcome.reject(
          Rejection.BODY_TOO_LARGE,
          "body_len " + event.bodyLen() + " exceeds the capture limit of " + maxBodyBytes);
    }
    Optional<BodyEncoding> encoding = BodyEncoding.fromWireName(event.bodyEncoding());
    if (encoding.isEmpty()) {
      return Outcome.reject(
          Rejection.INVALID_FIELD,
          "body_encoding must be utf-8 or base64, got " + quoteShort(event.bodyEncoding()));
    }
    byte[] body;
    try {
      body = encoding.get().decode(event.body());
    } catch (IllegalArgumentException e) {
      return Outcome.reject(Rejection.INVALID_FIELD, "body is not valid base64");
    }
    if (body.length != event.bodyLen()) {
      return Outcome.reject(
          Rejection.BODY_MISMATCH,
          "body has " + body.length + " bytes but body_len says " + event.bodyLen());
    }
    if (body.length > maxBodyBytes) {
      return Outcome.reject(
          Rejection.BODY_TOO_LARGE,
          "body has " + body.length + " bytes, over the capture limit of " + maxBodyBytes);
    }
    String sha = Sha256.hex(body);
    if (!sha.equals(event.bodySha256())) {
      return Outcome.reject(Rejection.BODY_MISMATCH, "body bytes do not match body_sha256");
    }
    boolean utf8 =
        encoding.get() == BodyEncoding.UTF_8 || BodyEncoding.strictUtf8(body).isPresent();
    return new Outcome(new ValidatedRequest(event, body, utf8), null);
  }

  private static Optional<Rejection> checkFieldTypes(JsonNode tree) {
    String[] textual = {
      "request_id", "session_key", "method", "path", "body", "body_encoding", "body_sha256"
    };
    for (String field : textual) {
      JsonNode node = tree.get(field);
      if (node == null || node.isNull()) {
        return Optional.of(new Rejection(Rejection.MISSING_FIELD, field + " is missing"));
      }
      if (!node.isTextual()) {
        return Optional.of(new Rejection(Rejection.INVALID_FIELD, field + " must be a string"));
      }
    }
    if (tree.get("session_key").asText().isEmpty()) {
      return Optional.of(new Rejection(Rejection.INVALID_FIELD, "session_key must not be empty"));
    }
    String[] integral = {"ts", "body_len"};
    for (String field : integral) {
      JsonNode node = tree.get(field);
      if (node == null || node.isNull()) {
        return Optional.of(new Rejection(Rejection.MISSING_FIELD, field + " is missing"));
      }
      if (!node.canConvertToLong() || !node.isIntegralNumber() || node.asLong() < 0) {
        return Optional.of(
            new Rejection(Rejection.INVALID_FIELD, field + " must be a non-negative integer"));
      }
    }
    return Optional.empty();
  }

  private static String quoteShort(String value) {
    if (value == null) {
      return "nothing";
    }
    return value.length() <= 16 ? "\"" + value + "\"" : "a " + value.length() + "-character string";
  }
}
