package io.prefixlog.bridge.proxy;

import io.prefixlog.core.request.BodyRedaction;
import io.prefixlog.core.request.QueryCredentials;
import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.TenantSource;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns a {@link CapturedExchange} into the raw request event (docs/design.md#records) and its
 * Kafka record: the session key (unless the event loop derived it), the captured headers and client
 * address as configured, the path without credential parameters, the sampling decision, the body's
 * digest, and the event's bytes, framed or JSON. Thread-safe; runs on the publisher thread (and on
 * the warm-up's event loops, which encode and discard).
 */
final class EventFactory {
  private final SessionKeys sessionKeys;
  private final ClientAddresses clientAddresses;
  private final HeaderPolicy headerPolicy;
  private final CaptureSampling sampling;
  private final ProxyMetrics metrics;
  private final QueryCredentials queryCredentials;
  private final BodyRedaction redaction;
  private final ClientCaptureRate clientRate;

  /** The headers whose value names a client to {@link ClientCaptureRate}, first found first. */
  private static final List<String> CREDENTIAL_HEADERS = TenantSource.CREDENTIAL_HEADERS;

  /** The raw events' {@code upstream}: where this proxy forwards ({@link #upstreamLabel}). */
  private final String upstream;

  /** How an event with its body is written (a metadata-only event is JSON either way). */
  private final CaptureConfig.RawEventFormat format;

  /** One reusable JSON writer per thread that encodes (the publisher's). */
  private final ThreadLocal<EventWriter> writers = ThreadLocal.withInitial(EventWriter::new);

  /**
   * @param metrics counts the sampling decisions
   */
  EventFactory(
      CaptureConfig capture,
      SamplingConfig sampling,
      UpstreamConfig upstream,
      SessionKeys sessionKeys,
      ClientAddresses clientAddresses,
      ProxyMetrics metrics) {
    this.sessionKeys = sessionKeys;
    this.clientAddresses = clientAddresses;
    this.headerPolicy = HeaderPolicy.of(capture);
    this.sampling = CaptureSampling.of(sampling);
    this.metrics = metrics;
    this.upstream = upstreamLabel(upstream.origin());
    this.format = capture.rawEventFormat();
    this.queryCredentials = capture.queryCredentials();
    this.redaction = capture.redaction();
    this.clientRate = ClientCaptureRate.of(sampling);
  }

  /**
   * The upstream as the raw events name it: {@code scheme://host:port}, the port always written
   * (the scheme's default when the URL has none), so that one engine has one name. Never the URL's
   * user information: a credential in {@code PREFIXLOG_PROXY_UPSTREAM} must not reach the topic.
   */
  static String upstreamLabel(URI upstream) {
    String scheme = upstream.getScheme().toLowerCase(Locale.ROOT);
    int port = upstream.getPort() >= 0 ? upstream.getPort() : scheme.equals("https") ? 443 : 80;
    return scheme + "://" + upstream.getHost().toLowerCase(Locale.ROOT) + ":" + port;
  }

  EncodedEvent encode(CapturedExchange x) {
    CapturedExchange.Request r = x.request();
    CapturedExchange.Body captured = redacted(x.body());
    byte[] body = captured.bytes();
    Map<String, String> sessionHeaders = sessionKeys.headers(r.headers());
    String tenant = tenant(sessionHeaders);
    // A truncated body is not whole JSON: BodyFields gives EMPTY.
    BodyFields fields =
        r.sessionKey() != null
            ? BodyFields.readTopLevel(body)
            : sessionKeys.fields(sessionHeaders, body, body.length);
    SessionKey key =
        r.sessionKey() != null
            ? r.sessionKey()
            : sessionKeys.key(tenant, sessionHeaders, fields, r.clientAddr(), r.userAgent());
    String model = fields.model() == null || fields.model().isEmpty() ? null : fields.model();
    // Here, on the publisher thread, not on the request path, which forwards the target as sent.
    QueryCredentials.Stripped path = queryCredentials.strip(r.path());
    if (path.removed() > 0) {
      metrics.queryCredentials.increment(path.removed());
    }
    CaptureSampling.Decision decision =
        sampling.decide(key.key(), model, path.target(), x.outcome().status(), x.outcome().error());
    if (keepsBody(decision) && !clientRate.admits(client(r), body.length, r.ts())) {
      decision = CaptureSampling.Decision.CLIENT_RATE;
    }
    metrics.sampled(decision).increment();
    EventWriter.RequestFields request = requestFields(r, key, tenant, model, path.target());
    byte[] value =
        switch (decision) {
          case SAMPLED_OUT -> metadataOnly(request, captured, response(x.outcome()), true);
          case REFUSED, CLIENT_RATE ->
              metadataOnly(request, captured, response(x.outcome()), false);
          case SESSION_SELECTED, FORCED -> withBody(request, captured, response(x.outcome()));
        };
    return new EncodedEvent(key.key(), value, r.requestId(), r.ts());
  }

  private static boolean keepsBody(CaptureSampling.Decision decision) {
    return decision == CaptureSampling.Decision.SESSION_SELECTED
        || decision == CaptureSampling.Decision.FORCED;
  }

  /**
   * Who a capture budget belongs to: the hash of the request's credential (it is never stored; the
   * bucket map holds the hash), else the address the proxy saw.
   */
  private String client(CapturedExchange.Request r) {
    if (!clientRate.limits()) {
      return "";
    }
    for (String name : CREDENTIAL_HEADERS) {
      String credential = r.headers().get(name);
      if (credential != null) {
        return "credential:" + Sha256.hex(credential.getBytes(StandardCharsets.UTF_8));
      }
    }
    return "address:" + r.clientAddr();
  }

  /**
   * The body as it is stored: with the redactions {@code PREFIXLOG_REDACT_*} ask for, made here on
   * the publisher thread, before anything (session key, checksum, chunk hashes) is derived from it.
   */
  private CapturedExchange.Body redacted(CapturedExchange.Body body) {
    BodyRedaction.Redacted redacted = redaction.apply(body.bytes());
    if (!redacted.changed()) {
      return body;
    }
    metrics.redacted(redacted);
    return new CapturedExchange.Body(redacted.bytes(), body.truncated(), body.originalLength());
  }

  /** The request's tenant (null: none), a request without one counted when tenants are on. */
  private String tenant(Map<String, String> sessionHeaders) {
    if (!sessionKeys.tenanted()) {
      return null;
    }
    String tenant = sessionKeys.tenant(sessionHeaders);
    if (tenant == null) {
      metrics.tenantMissing.increment();
    }
    return tenant;
  }

  private EventWriter.RequestFields requestFields(
      CapturedExchange.Request r, SessionKey key, String tenant, String model, String path) {
    // Addresses in forwarding headers follow PREFIXLOG_CLIENT_ADDR as client_addr does.
    Map<String, String> captured = clientAddresses.headers(headerPolicy.capture(r.headers()));
    if (tenant != null) {
      captured = new TreeMap<>(captured);
      captured.put(TenantSource.RECORDED_HEADER, tenant);
    }
    return new EventWriter.RequestFields(
        r.requestId(),
        r.ts(),
        key.key(),
        key.source(),
        clientAddresses.record(r.clientAddr()),
        r.userAgent(),
        captured.isEmpty() ? null : captured,
        r.method(),
        path,
        model,
        r.requestId(),
        r.clientRequestId());
  }

  /**
   * Stage two of sampling: the metadata and, when {@code withChunks}, the chunk hashes, never the
   * body. Hashing here, on the publisher thread, keeps it off the request path (the proxy benchmark
   * measures both). A request the engine refused, or one over its client's capture budget, is
   * marked {@code sampled_out} too, which every stream app reads; without chunk hashes, so that a
   * flood costs no hashing.
   */
  private byte[] metadataOnly(
      EventWriter.RequestFields request,
      CapturedExchange.Body body,
      ResponseInfo response,
      boolean withChunks) {
    byte[] bytes = body.bytes();
    return writers
        .get()
        .writeMetadataOnly(
            request,
            bytes.length,
            Sha256.hex(bytes),
            body.truncated(),
            body.originalLength(),
            response,
            RawRequestEvent.SAMPLED_OUT,
            withChunks ? sampling.chunks(bytes, Utf8.isStrict(bytes)) : null,
            upstream);
  }

  private byte[] withBody(
      EventWriter.RequestFields request, CapturedExchange.Body body, ResponseInfo response) {
    EventWriter writer = writers.get();
    byte[] bytes = body.bytes();
    String sha256 = Sha256.hex(bytes);
    return writer.write(
        format,
        request,
        bytes,
        sha256,
        body.truncated(),
        body.originalLength(),
        response,
        upstream);
  }

  private static ResponseInfo response(CapturedExchange.Outcome o) {
    return new ResponseInfo(
        o.status(),
        round(o.latencyMs()),
        o.ttfbMs() == null ? null : round(o.ttfbMs()),
        o.usage(),
        o.responseId(),
        o.error());
  }

  /** Microsecond precision is plenty, and keeps the JSON short. */
  private static double round(double millis) {
    return Math.round(millis * 1000.0) / 1000.0;
  }
}
