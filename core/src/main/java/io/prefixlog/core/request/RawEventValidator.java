package io.prefixlog.core.request;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.PromptChunks;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.io.IOException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Checks a raw request event as it arrives from any producer: the bridge, a middleware, kcat. Both
 * forms are accepted on one topic: version 1, a JSON object whose body is a string ({@code utf-8}
 * text or {@code base64}), and version 2, a frame of a JSON header and the body's bytes ({@link
 * RawEventFrame}), whose body is neither unescaped nor decoded: its bytes are checked where they
 * lie. The outcome is either a {@link ValidatedRequest} whose body bytes match the declared length
 * and SHA-256, or a {@link Rejection} with a reason code.
 */
public final class RawEventValidator {
  private static final ObjectMapper STRICT = strictMapper();

  /** The shared mapper, but coercing nothing: a string is not a number, a number not a string. */
  private static ObjectMapper strictMapper() {
    JsonMapper mapper =
        ((JsonMapper) Json.mapper())
            .rebuild()
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .build();
    mapper
        .coercionConfigFor(LogicalType.Integer)
        .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    mapper
        .coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    mapper
        .coercionConfigFor(LogicalType.Boolean)
        .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
    return mapper;
  }

  private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
  private static final Pattern CHUNK_HASH = Pattern.compile("0x[0-9a-f]+");

  /**
   * The schema's {@code $defs/session_key}. Not only a form: the turn keys are {@code
   * session_key/chain/seq}, and erasure, the rebuild and every reader take the session as what
   * comes before the first {@code /}.
   */
  private static final Pattern SESSION_KEY = Pattern.compile("[0-9a-f]{16,64}");

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
    if (RawEventFrame.isFramed(value)) {
      return validateFramed(key, value);
    }
    Read read = read(value, 0, value.length, RawRequestEvent.SCHEMA_VERSION, "the value");
    if (read.rejected() != null) {
      return new Outcome(null, read.rejected());
    }
    RawRequestEvent event = read.event();
    if (event.bodyOmitted() != null) {
      return validateMetadataOnly(key, event);
    }
    Optional<Rejection> fieldProblem =
        checkRequiredFields(event, true).or(() -> recordKeyProblem(key, event));
    if (fieldProblem.isPresent()) {
      return new Outcome(null, fieldProblem.get());
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
    boolean utf8 = encoding.get() == BodyEncoding.UTF_8 || Utf8.isStrict(body);
    return new Outcome(new ValidatedRequest(event, body, utf8), null);
  }

  /** An event read, or why it could not be. */
  private record Read(RawRequestEvent event, Rejection rejected) {}

  /**
   * The event in {@code value[offset, offset + length)}, which must say {@code schema_version}
   * {@code version}. One pass from bytes to the record (a tree first costs a third more on 20 KB
   * bodies), with a mapper that coerces nothing, so that "ts":"5" or "body_len":1.5 are errors, not
   * guesses.
   *
   * @param what how a rejection names the JSON read
   */
  private static Read read(byte[] value, int offset, int length, int version, String what) {
    RawRequestEvent event;
    try {
      event = STRICT.readValue(value, offset, length, RawRequestEvent.class);
    } catch (MismatchedInputException e) {
      return new Read(null, mismatch(e, version));
    } catch (IOException e) {
      return new Read(
          null,
          new Rejection(
              Rejection.INVALID_JSON,
              what + ": " + JsonSerde.describeReadFailure(RawRequestEvent.class, e)));
    }
    if (event == null) {
      return new Read(null, new Rejection(Rejection.INVALID_JSON, what + " is not a JSON object"));
    }
    if (event.schemaVersion() == null) {
      return new Read(null, new Rejection(Rejection.MISSING_FIELD, "schema_version is missing"));
    }
    if (event.schemaVersion() != version) {
      return new Read(
          null,
          new Rejection(
              Rejection.UNKNOWN_SCHEMA_VERSION,
              "schema_version " + event.schemaVersion() + " is not " + version));
    }
    return new Read(event, null);
  }

  /**
   * A framed event (version 2): its header read as a version 1 event without {@code body} and
   * {@code body_encoding}, then the bytes after it checked as the body, where they lie.
   */
  private Outcome validateFramed(String key, byte[] value) {
    RawEventFrame.Parts parts;
    try {
      parts = RawEventFrame.parse(value);
    } catch (IllegalArgumentException e) {
      return Outcome.reject(Rejection.INVALID_FRAME, e.getMessage());
    }
    Read read =
        read(
            value,
            parts.headerOffset(),
            parts.headerLength(),
            RawEventFrame.SCHEMA_VERSION,
            "the frame's header");
    if (read.rejected() != null) {
      return new Outcome(null, read.rejected());
    }
    RawRequestEvent event = read.event();
    if (event.body() != null
        || event.bodyEncoding() != null
        || event.bodyOmitted() != null
        || event.promptChunks() != null) {
      return Outcome.reject(
          Rejection.INVALID_FIELD,
          "a framed event's header has no body, body_encoding, body_omitted or prompt_chunks");
    }
    Optional<Rejection> fieldProblem =
        checkRequiredFields(event, false).or(() -> recordKeyProblem(key, event));
    if (fieldProblem.isPresent()) {
      return new Outcome(null, fieldProblem.get());
    }
    if (event.bodyLen() > maxBodyBytes || parts.bodyLength() > maxBodyBytes) {
      return Outcome.reject(
          Rejection.BODY_TOO_LARGE,
          "the body has "
              + parts.bodyLength()
              + " bytes (body_len "
              + event.bodyLen()
              + "), over the capture limit of "
              + maxBodyBytes);
    }
    if (parts.bodyLength() != event.bodyLen()) {
      return Outcome.reject(
          Rejection.BODY_MISMATCH,
          "the frame holds "
              + parts.bodyLength()
              + " body bytes but body_len says "
              + event.bodyLen());
    }
    byte[] body = parts.body();
    if (!Sha256.hex(body).equals(event.bodySha256())) {
      return Outcome.reject(Rejection.BODY_MISMATCH, "body bytes do not match body_sha256");
    }
    return new Outcome(new ValidatedRequest(event, body, Utf8.isStrict(body)), null);
  }

  /**
   * A metadata-only event (capture sampling): no body and no encoding, the digest and length of the
   * body the producer saw, and, when present, chunk hashes that a lookup record can carry as they
   * are.
   */
  private Outcome validateMetadataOnly(String key, RawRequestEvent event) {
    if (!RawRequestEvent.SAMPLED_OUT.equals(event.bodyOmitted())) {
      return Outcome.reject(
          Rejection.INVALID_FIELD,
          "body_omitted must be "
              + RawRequestEvent.SAMPLED_OUT
              + ", got "
              + quoteShort(event.bodyOmitted()));
    }
    if (event.body() != null || event.bodyEncoding() != null) {
      return Outcome.reject(
          Rejection.INVALID_FIELD,
          "a metadata-only event (body_omitted) has no body or body_encoding");
    }
    String[][] required = {
      {"request_id", event.requestId()},
      {"session_key", event.sessionKey()},
      {"method", event.method()},
      {"path", event.path()},
      {"body_sha256", event.bodySha256()}
    };
    for (String[] field : required) {
      if (field[1] == null) {
        return Outcome.reject(Rejection.MISSING_FIELD, field[0] + " is missing");
      }
    }
    Optional<Rejection> keyProblem = sessionKeyProblem(event.sessionKey());
    if (keyProblem.isPresent()) {
      return new Outcome(null, keyProblem.get());
    }
    Optional<Rejection> idProblem = idProblem(event);
    if (idProblem.isPresent()) {
      return new Outcome(null, idProblem.get());
    }
    if (event.ts() == null || event.bodyLen() == null) {
      return Outcome.reject(
          Rejection.MISSING_FIELD, (event.ts() == null ? "ts" : "body_len") + " is missing");
    }
    if (event.ts() < 0 || event.bodyLen() < 0) {
      return Outcome.reject(
          Rejection.INVALID_FIELD, "ts and body_len must be non-negative integers");
    }
    Optional<Rejection> keyMismatch = recordKeyProblem(key, event);
    if (keyMismatch.isPresent()) {
      return new Outcome(null, keyMismatch.get());
    }
    if (!SHA256_HEX.matcher(event.bodySha256()).matches()) {
      return Outcome.reject(
          Rejection.INVALID_FIELD, "body_sha256 must be 64 lower-case hex digits");
    }
    PromptChunks chunks = event.promptChunks();
    if (chunks != null) {
      Optional<String> problem = chunkProblem(chunks);
      if (problem.isPresent()) {
        return Outcome.reject(Rejection.INVALID_FIELD, "prompt_chunks: " + problem.get());
      }
    }
    return new Outcome(ValidatedRequest.metadataOnly(event), null);
  }

  private static Optional<String> chunkProblem(PromptChunks chunks) {
    if (chunks.chunkSize() == null || chunks.chunkSize() < 1) {
      return Optional.of("chunk_size must be an integer >= 1");
    }
    if (chunks.seqLen() == null || chunks.seqLen() < 0) {
      return Optional.of("seq_len must be a non-negative integer");
    }
    if (chunks.chunkHashes() == null
        || chunks.hashAlgo() == null
        || chunks.chunkUnit() == null
        || chunks.chunked() == null) {
      return Optional.of("chunk_hashes, hash_algo, chunk_unit and chunked are required");
    }
    if (chunks.chunkHashes().size() != chunks.seqLen() / chunks.chunkSize()) {
      return Optional.of(
          "chunk_hashes has "
              + chunks.chunkHashes().size()
              + " entries, seq_len / chunk_size is "
              + chunks.seqLen() / chunks.chunkSize());
    }
    for (String hash : chunks.chunkHashes()) {
      if (hash == null || !CHUNK_HASH.matcher(hash).matches()) {
        return Optional.of("every chunk hash must be 0x and lower-case hex");
      }
    }
    return Optional.empty();
  }

  /**
   * @param bodyInline whether the body is a field of the event (version 1), not bytes after it
   */
  private static Optional<Rejection> checkRequiredFields(
      RawRequestEvent event, boolean bodyInline) {
    String[][] required = {
      {"request_id", event.requestId()},
      {"session_key", event.sessionKey()},
      {"method", event.method()},
      {"path", event.path()},
      {"body", bodyInline ? event.body() : ""},
      {"body_encoding", bodyInline ? event.bodyEncoding() : ""},
      {"body_sha256", event.bodySha256()}
    };
    for (String[] field : required) {
      if (field[1] == null) {
        return Optional.of(new Rejection(Rejection.MISSING_FIELD, field[0] + " is missing"));
      }
    }
    Optional<Rejection> keyProblem = sessionKeyProblem(event.sessionKey());
    if (keyProblem.isPresent()) {
      return keyProblem;
    }
    Optional<Rejection> idProblem = idProblem(event);
    if (idProblem.isPresent()) {
      return idProblem;
    }
    if (event.ts() == null) {
      return Optional.of(new Rejection(Rejection.MISSING_FIELD, "ts is missing"));
    }
    if (event.bodyLen() == null) {
      return Optional.of(new Rejection(Rejection.MISSING_FIELD, "body_len is missing"));
    }
    if (event.ts() < 0) {
      return Optional.of(
          new Rejection(Rejection.INVALID_FIELD, "ts must be a non-negative integer"));
    }
    if (event.bodyLen() < 0) {
      return Optional.of(
          new Rejection(Rejection.INVALID_FIELD, "body_len must be a non-negative integer"));
    }
    return Optional.empty();
  }

  /**
   * Why the record key does not fit the event, or empty: a record keyed by anything but its {@code
   * session_key} could put one session on two partitions. A null key is not checked.
   */
  private static Optional<Rejection> recordKeyProblem(String key, RawRequestEvent event) {
    if (key == null || key.equals(event.sessionKey())) {
      return Optional.empty();
    }
    return Optional.of(
        new Rejection(
            Rejection.KEY_MISMATCH,
            "the record key is not the event's session_key, so the session could span partitions"));
  }

  /**
   * Why {@code sessionKey} is not a session key, or empty. The detail gives its length, never the
   * value: a producer that put a raw session id there must not see it copied into a dead letter's
   * reason.
   */
  private static Optional<Rejection> sessionKeyProblem(String sessionKey) {
    if (SESSION_KEY.matcher(sessionKey).matches()) {
      return Optional.empty();
    }
    return Optional.of(
        new Rejection(
            Rejection.INVALID_FIELD,
            "session_key must be 16 to 64 lower-case hex digits (a keyed hash), got "
                + sessionKey.length()
                + " characters"
                + (sessionKey.indexOf('/') >= 0
                    ? " with a '/', which would split the keys session_key/chain/seq"
                    : "")));
  }

  /**
   * Why the optional ids are unusable, or empty: an empty {@code capture_id} would make every event
   * of its session one capture to the dedup, so it is refused rather than read as absent.
   */
  private static Optional<Rejection> idProblem(RawRequestEvent event) {
    if (event.captureId() != null && event.captureId().isEmpty()) {
      return Optional.of(new Rejection(Rejection.INVALID_FIELD, "capture_id must not be empty"));
    }
    if (event.clientRequestId() != null && event.clientRequestId().isEmpty()) {
      return Optional.of(
          new Rejection(Rejection.INVALID_FIELD, "client_request_id must not be empty"));
    }
    return Optional.empty();
  }

  /** A value of the wrong JSON type: which field, and what it should have been. */
  private static Rejection mismatch(MismatchedInputException e, int schemaVersion) {
    String field =
        e.getPath().isEmpty() ? null : e.getPath().get(e.getPath().size() - 1).getFieldName();
    if (field == null) {
      return new Rejection(Rejection.INVALID_JSON, "the value is not a JSON object");
    }
    if (field.equals("schema_version")) {
      return new Rejection(
          Rejection.UNKNOWN_SCHEMA_VERSION, "schema_version is not the integer " + schemaVersion);
    }
    String path =
        e.getPath().stream()
            .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
            .reduce((x, y) -> x + "." + y)
            .orElse(field);
    String expected = e.getTargetType() == null ? "another type" : describe(e.getTargetType());
    return new Rejection(Rejection.INVALID_FIELD, path + " must be " + expected);
  }

  private static String describe(Class<?> type) {
    if (type == String.class) {
      return "a string";
    }
    if (type == Long.class || type == Integer.class || type == long.class || type == int.class) {
      return "a non-negative integer";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == Double.class || type == double.class) {
      return "a number";
    }
    return "an object of the right shape";
  }

  private static String quoteShort(String value) {
    if (value == null) {
      return "nothing";
    }
    return value.length() <= 16 ? "\"" + value + "\"" : "a " + value.length() + "-character string";
  }
}
