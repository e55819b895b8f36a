package io.prefixlog.bridge.proxy;

import com.fasterxml.jackson.core.JsonGenerator;
import io.prefixlog.core.http.HostCheck;
import io.prefixlog.core.request.BodyRedaction;
import io.prefixlog.core.request.QueryCredentials;
import io.prefixlog.core.request.RawEventValidator;
import io.prefixlog.core.request.Rejection;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.BodyEncoding.EncodedBody;
import io.prefixlog.schemas.request.PromptChunks;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code POST /prefixlog/v1/events}: newline-delimited raw request events from a producer that
 * captures inside the engine (an API-server middleware), on the proxy's port. Bearer-token
 * protected ({@code PREFIXLOG_INGEST_TOKEN}; without one the endpoint answers 404). Each line is
 * checked by {@link RawEventValidator} (off the event loop) and, when valid, queued exactly like a
 * captured exchange, its bytes unchanged, keyed by its {@code session_key}, its record timestamp
 * its {@code ts} within the bounds {@link RecordTime} keeps. A line whose {@code headers} hold a
 * credential header is rejected ({@code secret_header}): secrets never reach Kafka, whoever
 * captured them.
 *
 * <p>Response: {@code {"accepted":n,"rejected":n,"dropped":n,"lines":[{"line":1,"outcome":
 * "accepted","request_id":"…"},{"line":2,"outcome":"rejected","reason":"…","detail":"…"},…]}} with
 * status 200 when every line was accepted, 400 when a line was rejected, 503 when the queue refused
 * a line (retry those). Blank lines are skipped.
 *
 * <p>Bounds: at most {@code PREFIXLOG_INGEST_MAX_CONCURRENT} requests are read at once (one more is
 * answered 503 with {@code Retry-After}); a line whose record would exceed the producer's {@code
 * max.request.size} is rejected ({@value #TOO_LARGE}) instead of accepted and then dropped by
 * Kafka.
 */
final class IngestHandler {
  static final String PATH = "/prefixlog/v1/events";
  static final String SECRET_HEADER = "secret_header";
  static final String TOO_LARGE = "record_too_large";

  /** A record batch's and a record's framing, generously: never under what Kafka adds. */
  private static final int RECORD_OVERHEAD = 512;

  private final Vertx vertx;
  private final byte[] token;
  private final long maxBytes;
  private final RawEventValidator validator;
  private final EventPublisher publisher;
  private final ProxyMetrics metrics;
  private final int maxConcurrent;
  private final long maxRecordBytes;
  private final AtomicInteger buffering = new AtomicInteger();
  private final ClientAddresses addresses;
  private final QueryCredentials queryCredentials;
  private final BodyRedaction redaction;
  private final CaptureConfig capture;
  private final HostCheck hosts;

  /**
   * @param capture the capture limit, which an ingested body must keep to as well
   * @param maxRecordBytes the producer's {@code max.request.size}: a line whose record would be
   *     larger is rejected ({@value #TOO_LARGE}) rather than accepted and then refused by Kafka
   */
  IngestHandler(
      Vertx vertx,
      IngestConfig config,
      CaptureConfig capture,
      EventPublisher publisher,
      ProxyMetrics metrics,
      ClientAddresses addresses,
      long maxRecordBytes,
      HostCheck hosts) {
    this.vertx = vertx;
    this.token =
        config.enabled() ? ("Bearer " + config.token()).getBytes(StandardCharsets.UTF_8) : null;
    this.maxBytes = config.maxBytes();
    this.validator = new RawEventValidator(capture.maxBodyBytes());
    this.publisher = publisher;
    this.metrics = metrics;
    this.maxConcurrent = config.maxConcurrent();
    this.maxRecordBytes = maxRecordBytes;
    this.addresses = addresses;
    this.queryCredentials = capture.queryCredentials();
    this.redaction = capture.redaction();
    this.capture = capture;
    this.hosts = hosts;
  }

  void handle(HttpServerRequest request) {
    if (!admitted(request)) {
      return;
    }
    // Each request buffers up to PREFIXLOG_INGEST_MAX_BYTES: only so many at once.
    if (buffering.incrementAndGet() > maxConcurrent) {
      buffering.decrementAndGet();
      request.response().putHeader("Retry-After", "1");
      reply(
          request,
          503,
          "{\"error\":\"PREFIXLOG_INGEST_MAX_CONCURRENT ("
              + maxConcurrent
              + ") ingest requests are in progress: retry\"}");
      return;
    }
    AtomicBoolean released = new AtomicBoolean();
    Runnable release =
        () -> {
          if (released.compareAndSet(false, true)) {
            buffering.decrementAndGet();
          }
        };
    request.response().endHandler(v -> release.run());
    request.response().closeHandler(v -> release.run());
    request.exceptionHandler(t -> release.run());
    read(request);
  }

  /**
   * False when the request was answered already: not this endpoint, the endpoint disabled, a wrong
   * token, not a POST, or a declared length over the bound.
   */
  private boolean admitted(HttpServerRequest request) {
    if (HostRefusal.refused(hosts, metrics.registry(), "ingest", request)) {
      return false;
    }
    if (!request.path().equals(PATH)) {
      reply(request, 404, "{\"error\":\"no such prefixlog endpoint\"}");
      return false;
    }
    if (token == null) {
      reply(
          request,
          404,
          "{\"error\":\"the ingest endpoint is disabled: set PREFIXLOG_INGEST_TOKEN\"}");
      return false;
    }
    String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
    if (authorization == null
        || !MessageDigest.isEqual(token, authorization.getBytes(StandardCharsets.UTF_8))) {
      request.response().putHeader("WWW-Authenticate", "Bearer");
      reply(request, 401, "{\"error\":\"missing or wrong bearer token\"}");
      return false;
    }
    if (request.method() != HttpMethod.POST) {
      request.response().putHeader("Allow", "POST");
      reply(request, 405, "{\"error\":\"POST newline-delimited raw request events\"}");
      return false;
    }
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (length != null && parse(length) > maxBytes) {
      tooLarge(request);
      return false;
    }
    return true;
  }

  /** Buffers the body (up to the bound), then processes it on a worker thread and replies. */
  private void read(HttpServerRequest request) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    boolean[] over = {false};
    request.handler(
        chunk -> {
          if (over[0]) {
            return;
          }
          if (body.size() + (long) chunk.length() > maxBytes) {
            over[0] = true;
            tooLarge(request);
            return;
          }
          body.writeBytes(chunk.getBytes());
        });
    request.endHandler(
        v -> {
          if (over[0]) {
            return;
          }
          vertx
              .executeBlocking(() -> process(body.toByteArray()), false)
              .onComplete(
                  result -> {
                    if (result.succeeded()) {
                      reply(request, result.result().status, result.result().json);
                    } else {
                      reply(request, 500, "{\"error\":\"internal error\"}");
                    }
                  });
        });
  }

  private record Result(int status, String json) {}

  /** What became of the lines of one request. */
  private static final class Counts {
    int accepted;
    int rejected;
    int dropped;
  }

  /** Validates and queues every line; runs on a worker thread. */
  private Result process(byte[] body) throws IOException {
    Counts counts = new Counts();
    ByteArrayOutputStream lines = new ByteArrayOutputStream();
    try (JsonGenerator json = Json.mapper().getFactory().createGenerator(lines)) {
      json.writeStartArray();
      int lineNumber = 0;
      int start = 0;
      while (start <= body.length) {
        int end = indexOf(body, (byte) '\n', start);
        if (end < 0) {
          end = body.length;
        }
        int stop = end > start && body[end - 1] == '\r' ? end - 1 : end;
        lineNumber++;
        byte[] line = Arrays.copyOfRange(body, start, stop);
        start = end + 1;
        if (!isBlank(line)) {
          processLine(json, lineNumber, line, counts);
        }
      }
      json.writeEndArray();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(
        ("{\"accepted\":"
                + counts.accepted
                + ",\"rejected\":"
                + counts.rejected
                + ",\"dropped\":"
                + counts.dropped
                + ",\"lines\":")
            .getBytes(StandardCharsets.UTF_8));
    out.writeBytes(lines.toByteArray());
    out.write('}');
    int status = counts.rejected > 0 ? 400 : counts.dropped > 0 ? 503 : 200;
    return new Result(status, out.toString(StandardCharsets.UTF_8));
  }

  /** Validates one line and queues it when it is valid; writes its outcome. */
  private void processLine(JsonGenerator json, int lineNumber, byte[] line, Counts counts)
      throws IOException {
    json.writeStartObject();
    json.writeNumberField("line", lineNumber);
    RawEventValidator.Outcome outcome = validator.validate(null, line);
    Rejection rejection = outcome.rejected();
    if (rejection == null) {
      rejection = tooLarge(outcome.accepted().event(), line);
    }
    if (rejection == null) {
      rejection = secretHeader(outcome.accepted().event());
    }
    if (rejection != null) {
      counts.rejected++;
      metrics.ingestLines("rejected").increment();
      metrics.ingestRejection(rejection.reason()).increment();
      json.writeStringField("outcome", "rejected");
      json.writeStringField("reason", rejection.reason());
      json.writeStringField("detail", rejection.detail());
    } else {
      queue(json, outcome.accepted(), line, counts);
    }
    json.writeEndObject();
  }

  private void queue(JsonGenerator json, ValidatedRequest accepted, byte[] line, Counts counts)
      throws IOException {
    RawRequestEvent event = accepted.event();
    EncodedEvent encoded =
        new EncodedEvent(
            event.sessionKey(), withCapturePolicy(accepted, line), event.requestId(), event.ts());
    json.writeStringField("request_id", event.requestId());
    if (publisher.offer(encoded)) {
      counts.accepted++;
      metrics.ingestLines("accepted").increment();
      json.writeStringField("outcome", "accepted");
    } else {
      counts.dropped++;
      metrics.ingestLines("dropped").increment();
      json.writeStringField("outcome", "dropped");
      json.writeStringField("reason", "queue_full");
    }
  }

  /**
   * A line whose record Kafka would refuse: the producer checks {@code max.request.size} on send,
   * after the line was answered; so it is checked here, with room for the key and the record's
   * framing.
   */
  private Rejection tooLarge(RawRequestEvent event, byte[] line) {
    long record =
        line.length + event.sessionKey().getBytes(StandardCharsets.UTF_8).length + RECORD_OVERHEAD;
    if (record <= maxRecordBytes) {
      return null;
    }
    return new Rejection(
        TOO_LARGE,
        "the record would take "
            + record
            + " bytes; the producer's max.request.size is "
            + maxRecordBytes);
  }

  /**
   * The line as stored: unchanged, unless it carries a client address ({@code client_addr}, an
   * address in a forwarding header) that {@code PREFIXLOG_CLIENT_ADDR} says to truncate, hash or
   * omit, or a path with credential parameters ({@code PREFIXLOG_QUERY_CREDENTIALS}); then it is
   * written again as the proxy would have recorded it (the body field is carried over as it was, so
   * the body still rebuilds to its checksum). The body of a request the engine refused (401, 403)
   * is left out, as the proxy leaves it out: the event becomes metadata only. A body the redaction
   * rules change ({@code PREFIXLOG_REDACT_*}) is stored redacted, with its own length and checksum.
   */
  private byte[] withCapturePolicy(ValidatedRequest accepted, byte[] line) throws IOException {
    RawRequestEvent event = accepted.event();
    String clientAddr = addresses.record(event.clientAddr());
    Map<String, String> headers =
        event.headers() == null ? null : withoutSessionHeaders(addresses.headers(event.headers()));
    QueryCredentials.Stripped path = queryCredentials.strip(event.path());
    if (path.removed() > 0) {
      metrics.queryCredentials.increment(path.removed());
    }
    StoredBody body = storedBody(accepted);
    if (Objects.equals(clientAddr, event.clientAddr())
        && Objects.equals(headers, event.headers())
        && path.removed() == 0
        && body == null) {
      return line;
    }
    body = body != null ? body : StoredBody.asSent(event);
    RawRequestEvent recorded =
        new RawRequestEvent(
            event.schemaVersion(),
            event.requestId(),
            event.ts(),
            event.sessionKey(),
            event.sessionKeySource(),
            clientAddr,
            event.userAgent(),
            headers == null || headers.isEmpty() ? null : headers,
            event.method(),
            path.target(),
            event.model(),
            body.text(),
            body.encoding(),
            body.length(),
            body.sha256(),
            event.truncated(),
            event.originalBodyLen(),
            event.response(),
            body.omitted(),
            body.chunks(),
            event.upstream(),
            event.captureId(),
            event.clientRequestId());
    return Json.mapper().writeValueAsBytes(recorded);
  }

  /**
   * The body fields an ingested event is stored with when the capture policy changes them: none
   * (metadata only) for a request the engine refused, the redacted bytes when a rule matched; null
   * when the body is stored as sent.
   */
  private StoredBody storedBody(ValidatedRequest accepted) {
    RawRequestEvent event = accepted.event();
    if (event.body() == null) {
      return null;
    }
    if (event.response() != null && CaptureSampling.refusedByEngine(event.response().status())) {
      metrics.ingestRefusedBodies.increment();
      return new StoredBody(
          null, null, event.bodyLen(), event.bodySha256(), RawRequestEvent.SAMPLED_OUT, null);
    }
    BodyRedaction.Redacted redacted = redaction.apply(accepted.body());
    if (!redacted.changed()) {
      return null;
    }
    metrics.redacted(redacted);
    EncodedBody encoded = BodyEncoding.encode(redacted.bytes());
    return new StoredBody(
        encoded.text(),
        encoded.encoding().wireName(),
        (long) redacted.bytes().length,
        Sha256.hex(redacted.bytes()),
        event.bodyOmitted(),
        event.promptChunks());
  }

  /** An ingested event's body fields as stored. */
  private record StoredBody(
      String text,
      String encoding,
      Long length,
      String sha256,
      String omitted,
      PromptChunks chunks) {
    static StoredBody asSent(RawRequestEvent event) {
      return new StoredBody(
          event.body(),
          event.bodyEncoding(),
          event.bodyLen(),
          event.bodySha256(),
          event.bodyOmitted(),
          event.promptChunks());
    }
  }

  /** The headers but the session headers that are not to be stored ({@link HeaderPolicy}). */
  private Map<String, String> withoutSessionHeaders(Map<String, String> headers) {
    Map<String, String> kept = new TreeMap<>();
    headers.forEach(
        (name, value) -> {
          if (HeaderPolicy.storedFromIngest(name, capture)) {
            kept.put(name, value);
          }
        });
    return kept.size() == headers.size() ? headers : kept;
  }

  private static Rejection secretHeader(RawRequestEvent event) {
    if (event.headers() == null) {
      return null;
    }
    for (String name : event.headers().keySet()) {
      if (HeaderPolicy.isSecret(name)) {
        return new Rejection(
            SECRET_HEADER,
            "headers." + name + " is a credential header; credentials are never stored");
      }
    }
    return null;
  }

  private void tooLarge(HttpServerRequest request) {
    request.response().putHeader(HttpHeaders.CONNECTION, "close");
    reply(
        request,
        413,
        "{\"error\":\"the request is larger than PREFIXLOG_INGEST_MAX_BYTES (" + maxBytes + ")\"}");
  }

  private void reply(HttpServerRequest request, int status, String json) {
    metrics.ingestRequest(status);
    if (request.response().ended()) {
      return;
    }
    request
        .response()
        .setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(Buffer.buffer(json.getBytes(StandardCharsets.UTF_8)));
  }

  private static long parse(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE;
    }
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isBlank(byte[] line) {
    for (byte b : line) {
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }
}
