package io.prefixlog.bridge.proxy;

import io.prefixlog.core.session.SessionKey;
import io.vertx.core.AsyncResult;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One proxied exchange, driven entirely on its connection's event loop: opens (or reuses) an
 * upstream connection, streams the request body upstream while copying up to the capture limit,
 * streams the response back as it arrives while scanning it for id and usage, and hands the capture
 * to the queue once the response completes or fails.
 *
 * <p>Back-pressure both ways: when the upstream request's write queue is full the client request is
 * paused until it drains, and likewise the upstream response for a slow client. Nothing is buffered
 * whole except the captured request body (bounded by the capture limit), small bodies, and a
 * streamed response for an HTTP/1.0 client (inside the capture-memory bound).
 *
 * <p>A body still arriving holds its engine connection for as long as its client takes, so such
 * exchanges hold at most the loop's {@link UploadSlots}; one that waits for a slot reads its body
 * ahead meanwhile, and a client too slow for the minimum body rate is closed ({@link
 * ClientConnections}) before it ever holds one.
 */
final class Exchange {
  private static final Logger LOGGER = LoggerFactory.getLogger(Exchange.class);

  private final ExchangeContext context;
  private final HttpServerRequest request;
  private final HttpServerResponse response;
  private final long startNanos;
  private final long ts;

  /**
   * This capture's id, new for every exchange (so a client's or gateway's retry is a capture of its
   * own): the event's {@code capture_id} and {@code request_id}.
   */
  private final String requestId;

  /** The client's {@code X-Request-Id}, or null: the event's {@code client_request_id}. */
  private final String clientRequestId;

  private final String clientAddr;
  private final String userAgent;

  /** The target in origin form: what the engine gets and what is stored ({@link OriginForm}). */
  private final String target;

  private final MultiMap upstreamHeaders;
  private final boolean hasBody;
  private final boolean chunkedUpload;
  private final BodyCapture capture;

  private HttpClientRequest upstream;
  private List<Buffer> early;
  private boolean waitForEnd;
  private boolean withSessionHeader;
  private boolean connecting;

  /** Holds one of the loop's {@link UploadSlots}: connected while its body is still arriving. */
  private boolean uploading;

  /**
   * Waits for one of them, reading its body ahead meanwhile: what the slots run once one is free.
   */
  private Runnable slotRetry;

  private boolean requestEnded;
  private boolean responseStarted;
  private boolean done;
  private SessionKey sessionKey;
  private Integer status;
  private long ttfbNanos = -1;

  /** When the request was forwarded (the upstream request asked for), and the engine's end. */
  private long forwardedNanos = -1;

  private long upstreamEndNanos = -1;
  private ResponseScanner scanner = new ResponseScanner.None();
  private Buffer heldBody;
  private int heldLimit;
  private boolean heldNeedsLength;
  private final long declaredLength;

  /**
   * Largest streamed response collected for an HTTP/1.0 client. What is collected is also reserved
   * from the capture-memory bound as it arrives ({@link #holdHttp10}): many such clients at once
   * must not grow the heap beyond it.
   */
  static final int MAX_HTTP10_BODY = 64 << 20;

  /** The error a collected HTTP/1.0 response beyond either bound ends with (502). */
  static final String HTTP10_TOO_LARGE = "http10_response_too_large";

  /** Bytes of {@link #heldBody} reserved from the capture-memory bound (HTTP/1.0 only). */
  private long heldReserved;

  /**
   * Request and response bodies of a declared length up to this are passed on in one write once
   * complete (as nginx's default request and response buffering do): head and body leave in one
   * segment instead of several, which saves system calls and wake-ups on both connections. Larger
   * bodies, chunked uploads and streamed responses are passed on chunk by chunk as they arrive.
   */
  static final int SMALL_BODY = 256 << 10;

  Exchange(ExchangeContext context, HttpServerRequest request, long startNanos, long ts) {
    this.context = context;
    this.request = request;
    this.response = request.response();
    this.startNanos = startNanos;
    this.ts = ts;
    MultiMap headers = request.headers();
    String clientId = headers.get("x-request-id");
    this.clientRequestId = clientId == null || clientId.isBlank() ? null : clientId;
    this.requestId = newRequestId();
    SocketAddress remote = request.remoteAddress();
    this.clientAddr = remote == null ? null : remote.hostAddress();
    this.userAgent = headers.get("user-agent");
    this.target = OriginForm.of(request.uri());
    String contentLength = headers.get("content-length");
    String transferEncoding = headers.get("transfer-encoding");
    this.chunkedUpload =
        transferEncoding != null && transferEncoding.toLowerCase(Locale.ROOT).contains("chunked");
    this.hasBody = chunkedUpload || (contentLength != null && !contentLength.equals("0"));
    long expected = -1;
    if (contentLength != null) {
      try {
        expected = Long.parseLong(contentLength.trim());
      } catch (NumberFormatException e) {
        expected = -1;
      }
    }
    this.declaredLength = chunkedUpload ? -1 : expected;
    this.capture =
        new BodyCapture(context.capture().maxBodyBytes(), expected, context.captureMemory());
    this.upstreamHeaders = upstreamHeaders(headers);
  }

  /** Starts the exchange; the request is paused. */
  void begin() {
    context.clients().onBodyTimeout(request, kind -> guard(() -> onBodyTimeout(kind)));
    response.closeHandler(v -> onClientGone());
    response.exceptionHandler(t -> onClientGone());
    request.exceptionHandler(t -> onClientGone());
    boolean needSessionHeader =
        context.upstream().setSessionHeader() && !request.headers().contains("x-session-id");
    boolean small = hasBody && declaredLength >= 0 && declaredLength <= SMALL_BODY;
    if ((needSessionHeader || small) && hasBody) {
      // The key can come from the body: read it (up to the capture limit) before connecting;
      // a small body is read whole, to go upstream in one write with the head.
      early = new ArrayList<>();
      waitForEnd = small;
      withSessionHeader = needSessionHeader;
      readAhead();
      request.resume();
    } else {
      if (hasBody) {
        // Paused by the handler: the body waits for the engine's connection.
        context.clients().bodyHeld(request, true);
      }
      if (needSessionHeader) {
        connectWithSessionHeader();
      } else {
        connect();
      }
    }
  }

  private void onEarlyChunk(Buffer chunk) {
    capture.append(chunk);
    early.add(chunk);
    // A body let go for the capture bound connects at once too: its key can no longer come from
    // it, and the chunks read early must not pile up meanwhile.
    if (!waitForEnd && (capture.full() || capture.shed())) {
      holdBody();
      connectEarly();
    }
  }

  private void connectEarly() {
    if (withSessionHeader) {
      connectWithSessionHeader();
    } else {
      connect();
    }
  }

  private void connectWithSessionHeader() {
    if (connecting) {
      return;
    }
    SessionKeys keys = context.sessionKeys();
    Map<String, String> sessionHeaders = keys.headers(request.headers());
    sessionKey =
        keys.key(
            sessionHeaders,
            keys.fields(sessionHeaders, capture.bytes(), capture.length()),
            clientAddr,
            userAgent);
    upstreamHeaders.set("X-Session-ID", sessionKey.key());
    connect();
  }

  private void connect() {
    if (connecting || done) {
      return;
    }
    if (hasBody && !requestEnded && !uploading) {
      if (!context.uploads().tryTake()) {
        awaitUploadSlot();
        return;
      }
      uploading = true;
    }
    connecting = true;
    forwardedNanos = System.nanoTime();
    UpstreamConfig engine = context.upstream();
    RequestOptions options =
        new RequestOptions()
            .setMethod(request.method())
            .setHost(engine.origin().getHost())
            .setPort(engine.port())
            .setURI(target)
            .setHeaders(upstreamHeaders)
            .setIdleTimeout(engine.idleTimeout().toMillis());
    context.client().request(options).onComplete(result -> guard(() -> onUpstreamRequest(result)));
  }

  /**
   * All the engine connections bodies in progress may hold are held ({@link UploadSlots}): the body
   * is read ahead meanwhile, as for a session key, so its client is measured against the minimum
   * rate (and closed when below it) rather than parked; once the read-ahead is full it is held
   * back, which is the engine's wait and not the client's.
   */
  private void awaitUploadSlot() {
    if (slotRetry != null) {
      return;
    }
    slotRetry = this::onUploadSlot;
    context.uploads().await(slotRetry);
    if (early == null) {
      early = new ArrayList<>();
      readAhead();
      releaseBody();
    }
  }

  /**
   * Reads the body ahead into {@code early} (the session key's read, a small body, an upload
   * waiting for a slot) and connects once it has ended.
   */
  private void readAhead() {
    request.handler(chunk -> guard(() -> onEarlyChunk(chunk)));
    request.endHandler(
        v ->
            guard(
                () -> {
                  requestEnded = true;
                  connectEarly();
                }));
  }

  private void onUploadSlot() {
    slotRetry = null;
    guard(this::connectEarly);
  }

  /** The body is all with the engine (or will never be): its slot goes to the next upload. */
  private void releaseUpload() {
    if (uploading) {
      uploading = false;
      context.uploads().give();
    }
  }

  private void onUpstreamRequest(AsyncResult<HttpClientRequest> result) {
    if (result.failed()) {
      failBeforeResponse(result.cause());
      return;
    }
    upstream = result.result();
    // Every failure of the upstream request also fails its response future or its response
    // stream, and those handle it. Without a handler of its own, Vert.x logs each one at ERROR,
    // the resets the proxy makes itself when a client goes away included: a thousand clients
    // that hang up made a thousand error lines (HeaderOnlyLoadIT).
    upstream.exceptionHandler(ignored -> {});
    if (done) {
      upstream.reset();
      return;
    }
    if (hasBody && upstreamHeaders.get("content-length") == null) {
      upstream.setChunked(true);
    }
    upstream.response().onComplete(head -> guard(() -> onUpstreamResponse(head)));
    if (early != null) {
      List<Buffer> chunks = early;
      early = null;
      if (requestEnded) {
        upstream.end(join(chunks));
        releaseUpload();
        return;
      }
      for (Buffer chunk : chunks) {
        upstream.write(chunk);
      }
    }
    if (requestEnded) {
      upstream.end();
      releaseUpload();
      return;
    }
    request.handler(chunk -> guard(() -> onRequestChunk(chunk)));
    request.endHandler(
        v -> {
          requestEnded = true;
          upstream.end();
          releaseUpload();
        });
    releaseBody();
  }

  private void onRequestChunk(Buffer chunk) {
    capture.append(chunk);
    upstream.write(chunk);
    if (upstream.writeQueueFull()) {
      holdBody();
      upstream.drainHandler(v -> releaseBody());
    }
  }

  /** The engine cannot take more of the body yet: the client is paused, and not timed for it. */
  private void holdBody() {
    request.pause();
    context.clients().bodyHeld(request, true);
  }

  private void releaseBody() {
    if (hasBody) {
      context.clients().bodyHeld(request, false);
    }
    request.resume();
  }

  private void onUpstreamResponse(AsyncResult<HttpClientResponse> result) {
    if (result.failed()) {
      failBeforeResponse(result.cause());
      return;
    }
    HttpClientResponse upstreamResponse = result.result();
    ttfbNanos = System.nanoTime();
    if (done) {
      upstream.reset();
      return;
    }
    status = upstreamResponse.statusCode();
    response.setStatusCode(status);
    String message = upstreamResponse.statusMessage();
    if (message != null && !message.isEmpty()) {
      response.setStatusMessage(message);
    }
    MultiMap upstreamHeaders = upstreamResponse.headers();
    HeaderPolicy.copyEndToEnd(upstreamHeaders, response.headers());
    boolean bodyless =
        request.method() == HttpMethod.HEAD || status == 204 || status == 304 || status < 200;
    boolean streamed = !bodyless && upstreamHeaders.get("content-length") == null;
    if (streamed && request.version() == HttpVersion.HTTP_1_0) {
      // HTTP/1.0 has no chunked encoding: such a client gets the response whole, with its length.
      heldBody = Buffer.buffer();
      heldLimit = MAX_HTTP10_BODY;
      heldNeedsLength = true;
      streamed = false;
    } else if (streamed) {
      response.setChunked(true);
    } else if (!bodyless) {
      long length = parseLength(upstreamHeaders.get("content-length"));
      if (length >= 0 && length <= SMALL_BODY) {
        heldBody = Buffer.buffer((int) length);
        heldLimit = SMALL_BODY;
      }
    }
    scanner =
        ResponseScanner.forResponse(
            upstreamHeaders.get("content-type"), upstreamHeaders.get("content-encoding"));
    responseStarted = true;
    if (streamed) {
      // A stream's head goes out now, not with its first event (which may be seconds away).
      response.writeHead();
    }
    upstreamResponse.handler(chunk -> guard(() -> onResponseChunk(upstreamResponse, chunk)));
    upstreamResponse.exceptionHandler(this::failAfterResponse);
    upstreamResponse.endHandler(v -> guard(this::onResponseEnd));
  }

  private void onResponseChunk(HttpClientResponse upstreamResponse, Buffer chunk) {
    if (done) {
      return;
    }
    if (heldNeedsLength) {
      holdHttp10(chunk);
      return;
    }
    if (heldBody != null) {
      if (heldBody.length() + chunk.length() > heldLimit) {
        failAfterResponse(new IllegalStateException("response longer than it can be held"));
        return;
      }
      // Scanned whole once it has gone to the client (onResponseEnd).
      heldBody.appendBuffer(chunk);
      return;
    }
    byte[] bytes = scanned(chunk);
    response.write(chunk);
    // The client's bytes go first; the capture reads its copy of them after.
    if (bytes != null) {
      scanner.feed(bytes, 0, bytes.length);
    }
    if (response.writeQueueFull()) {
      upstreamResponse.pause();
      context.clients().awaitDrain(request, upstreamResponse::resume);
    }
  }

  /**
   * Collects a chunk of a streamed response for an HTTP/1.0 client, reserved from the
   * capture-memory bound: past it, or past {@link #MAX_HTTP10_BODY}, the client is answered 502
   * (its head has not gone out) and the engine's stream let go.
   */
  private void holdHttp10(Buffer chunk) {
    if (heldBody.length() + chunk.length() > heldLimit
        || !context.captureMemory().tryReserve(chunk.length())) {
      refuseHttp10();
      return;
    }
    heldReserved += chunk.length();
    // Scanned whole once it has gone to the client (onResponseEnd).
    heldBody.appendBuffer(chunk);
  }

  private void refuseHttp10() {
    heldBody = null;
    releaseHeld();
    status = 502;
    response.headers().clear();
    response
        .setStatusCode(502)
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .putHeader("X-Prefixlog-Error", HTTP10_TOO_LARGE)
        .putHeader("X-Request-Id", clientRequestId != null ? clientRequestId : requestId)
        .end(
            "prefixlog proxy: streamed response too large to collect for an HTTP/1.0 client"
                + " (PREFIXLOG_PROXY_CAPTURE_MEMORY); use HTTP/1.1\n");
    scanner.end();
    // Finished first: the reset's failure then finds nothing left to answer.
    finish(HTTP10_TOO_LARGE);
    upstream.reset();
  }

  private void releaseHeld() {
    if (heldReserved > 0) {
      context.captureMemory().release(heldReserved);
      heldReserved = 0;
    }
  }

  /**
   * The request body was too slow or too late ({@link ClientConnections}): the engine's request is
   * let go, the client answered 408 if nothing of its response went out; its connection is closed
   * after this.
   */
  private void onBodyTimeout(String kind) {
    if (done) {
      return;
    }
    if (!response.headWritten() && !response.ended()) {
      status = 408;
      ClientConnections.answerTimeout(response, kind);
    }
    finish("client_timeout");
    if (upstream != null) {
      upstream.reset();
    }
  }

  private void onResponseEnd() {
    if (done) {
      return;
    }
    upstreamEndNanos = System.nanoTime();
    if (heldBody != null) {
      if (heldNeedsLength) {
        response.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(heldBody.length()));
      }
      byte[] bytes = scanned(heldBody);
      if (heldReserved > 0) {
        // Reserved until written: a client slow to read it keeps it on the heap until then.
        long reserved = heldReserved;
        heldReserved = 0;
        response.end(heldBody).onComplete(v -> context.captureMemory().release(reserved));
      } else {
        response.end(heldBody);
      }
      if (bytes != null) {
        scanner.feed(bytes, 0, bytes.length);
      }
    } else {
      response.end();
    }
    scanner.end();
    finish(null);
  }

  /**
   * A copy of response bytes for the scanner, taken before they are written (a written buffer is
   * the channel's), or null when the scanner reads nothing. The scan runs after the write: parsing
   * a JSON body or an SSE event is capture work, and the client should not wait for it.
   */
  private byte[] scanned(Buffer buffer) {
    return scanner instanceof ResponseScanner.None ? null : buffer.getBytes();
  }

  /**
   * Runs a step of the exchange; a bug in it must not leave the client hanging or the exchange
   * uncounted: the client connection is reset and the exchange recorded as {@code proxy_error}.
   */
  private void guard(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      LOGGER
          .atError()
          .setMessage("exchange failed inside the proxy")
          .addKeyValue("requestId", requestId)
          .setCause(e)
          .log();
      if (upstream != null) {
        upstream.reset();
      }
      if (!response.ended() && !response.closed()) {
        response.reset();
      }
      finish("proxy_error");
    }
  }

  /** The upstream failed before a status arrived: the client gets a 502 or 504. */
  private void failBeforeResponse(Throwable cause) {
    if (overOrClientGone()) {
      return;
    }
    String error = classify(cause);
    if (responseStarted) {
      failAfterResponse(cause);
      return;
    }
    int code =
        error.equals("upstream_timeout") || error.equals("upstream_connect_timeout") ? 504 : 502;
    status = code;
    String body =
        "prefixlog proxy: "
            + error.replace('_', ' ')
            + " ("
            + context.upstream().origin().getHost()
            + ":"
            + context.upstream().port()
            + ")\n";
    response
        .setStatusCode(code)
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .putHeader("X-Prefixlog-Error", error)
        .putHeader("X-Request-Id", clientRequestId != null ? clientRequestId : requestId);
    if (!requestEnded) {
      // The rest of the request body will not be read: the connection cannot be reused.
      response.putHeader(HttpHeaders.CONNECTION, "close");
    }
    if (upstream != null) {
      upstream.reset();
    }
    response.end(Buffer.buffer(body.getBytes(StandardCharsets.UTF_8)));
    finish(error);
  }

  /**
   * The upstream failed mid-response: the status is already sent, so the client connection is
   * reset, and the client sees an incomplete response rather than a complete-looking one.
   */
  private void failAfterResponse(Throwable cause) {
    if (overOrClientGone()) {
      return;
    }
    String error = classify(cause);
    if (error.equals("upstream_connect_failed")) {
      error = "upstream_reset";
    }
    scanner.end();
    response.reset();
    finish(error);
  }

  /**
   * Whether an upstream failure has nothing left to answer: the exchange is finished, or the client
   * went away first, and then the upstream failure is its consequence, so the exchange is finished
   * as a client disconnect.
   */
  private boolean overOrClientGone() {
    if (done) {
      return true;
    }
    if (response.closed()) {
      onClientGone();
      return true;
    }
    return false;
  }

  private void onClientGone() {
    if (done) {
      return;
    }
    if (upstream != null) {
      // The engine stops generating for a request whose connection went away.
      upstream.reset();
    }
    finish("client_disconnect");
  }

  private void finish(String error) {
    if (done) {
      return;
    }
    done = true;
    releaseUpload();
    if (slotRetry != null) {
      context.uploads().cancel(slotRetry);
      slotRetry = null;
    }
    releaseHeld();
    long end = System.nanoTime();
    double latencyMs = (end - startNanos) / 1e6;
    Double ttfbMs = ttfbNanos < 0 ? null : (ttfbNanos - startNanos) / 1e6;
    if (scanner.unreadable()) {
      context.metrics().unreadable.increment();
    }
    if (status != null && !"client_disconnect".equals(error)) {
      context.metrics().response(status);
    }
    if (error != null) {
      context.metrics().error(error);
    }
    if (capture.shed()) {
      // Counted with the exchange, never published without its body.
      context.handoff().shed();
      return;
    }
    context.metrics().captureBytes.increment(capture.length());
    // What the client waited for beyond the engine: before the request went out, and after the
    // engine's last byte (a held body's write; the scan happens after it). Recorded into the
    // histogram by the publisher thread, with the TTFB.
    long addedNanos =
        error == null && forwardedNanos >= 0 && upstreamEndNanos >= 0
            ? (forwardedNanos - startNanos) + (end - upstreamEndNanos)
            : -1;
    if (capture.truncated()) {
      context.metrics().truncated.increment();
    }
    CapturedExchange captured =
        new CapturedExchange(
            new CapturedExchange.Request(
                requestId,
                clientRequestId,
                ts,
                request.method().name(),
                target,
                request.headers(),
                clientAddr,
                userAgent,
                sessionKey),
            new CapturedExchange.Body(capture.toByteArray(), capture.truncated(), capture.seen()),
            new CapturedExchange.Outcome(
                status, latencyMs, ttfbMs, scanner.usage(), scanner.id(), error, addedNanos));
    // The body is the publisher's queue's now (bounded by its own byte count).
    capture.release();
    context.handoff().completed(captured);
  }

  private MultiMap upstreamHeaders(MultiMap headers) {
    MultiMap out = HttpHeaders.headers();
    HeaderPolicy.copyEndToEnd(headers, out);
    // The upstream's own authority (as nginx's proxy_pass does); Expect is answered here.
    out.remove("host");
    out.remove("expect");
    if (headers.get("x-request-id") == null || headers.get("x-request-id").isBlank()) {
      out.set("X-Request-Id", requestId);
    }
    if (context.upstream().forwardedHeaders()) {
      String forwardedFor = headers.get("x-forwarded-for");
      if (clientAddr != null) {
        out.set(
            "X-Forwarded-For",
            forwardedFor == null ? clientAddr : forwardedFor + ", " + clientAddr);
      }
      if (headers.get("x-forwarded-proto") == null) {
        out.set("X-Forwarded-Proto", request.isSSL() ? "https" : "http");
      }
      String host = headers.get("host");
      if (host != null && headers.get("x-forwarded-host") == null) {
        out.set("X-Forwarded-Host", host);
      }
    }
    return out;
  }

  private static Buffer join(List<Buffer> chunks) {
    if (chunks.size() == 1) {
      return chunks.get(0);
    }
    int total = 0;
    for (Buffer chunk : chunks) {
      total += chunk.length();
    }
    Buffer joined = Buffer.buffer(total);
    for (Buffer chunk : chunks) {
      joined.appendBuffer(chunk);
    }
    return joined;
  }

  private static long parseLength(String value) {
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A short snake_case classification of an upstream failure (never a message excerpt). */
  static String classify(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      String name = t.getClass().getSimpleName();
      if (name.equals("ConnectTimeoutException")) {
        return "upstream_connect_timeout";
      }
      if (t instanceof TimeoutException || name.contains("Timeout")) {
        return "upstream_timeout";
      }
      if (t instanceof ConnectException) {
        return "upstream_connect_failed";
      }
    }
    return "upstream_reset";
  }

  /** A random version-4 UUID; ThreadLocalRandom, not SecureRandom: ids need uniqueness only. */
  static String newRequestId() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long hi = (random.nextLong() & ~0xF000L) | 0x4000L;
    long lo = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new java.util.UUID(hi, lo).toString();
  }
}
