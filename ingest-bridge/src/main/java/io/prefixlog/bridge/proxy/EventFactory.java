package io.prefixlog.bridge.proxy;

import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import java.util.Map;

/**
 * Turns a {@link CapturedExchange} into the raw request event (docs/design.md#records) and its
 * Kafka record. Thread-safe; runs on the publisher thread (or, for the session key only, on an
 * event loop when the proxy must send {@code X-Session-ID} upstream).
 */
final class EventFactory {
  private final SessionKeyDeriver deriver;
  private final ClientAddresses clientAddresses;
  private final CaptureSampling sampling;
  private final ProxyMetrics metrics;

  /** The raw events' {@code upstream}: where this proxy forwards, or null (the ingest endpoint). */
  private final String upstream;

  /** How an event with its body is written (a metadata-only event is JSON either way). */
  private final CaptureConfig.RawEventFormat format;

  /** One reusable JSON writer per thread that encodes (the publisher's). */
  private final ThreadLocal<EventWriter> writers = ThreadLocal.withInitial(EventWriter::new);

  EventFactory(SessionKeyDeriver deriver, ClientAddresses clientAddresses) {
    this(deriver, clientAddresses, CaptureSampling.keepAll(), null);
  }

  /**
   * @param metrics counts the sampling decisions, or null (tests)
   */
  EventFactory(
      SessionKeyDeriver deriver,
      ClientAddresses clientAddresses,
      CaptureSampling sampling,
      ProxyMetrics metrics) {
    this(deriver, clientAddresses, sampling, metrics, null);
  }

  /**
   * @param metrics counts the sampling decisions, or null (tests)
   * @param upstream every event's {@code upstream} ({@link #upstreamLabel}), or null for none
   */
  EventFactory(
      SessionKeyDeriver deriver,
      ClientAddresses clientAddresses,
      CaptureSampling sampling,
      ProxyMetrics metrics,
      String upstream) {
    this(
        deriver, clientAddresses, sampling, metrics, upstream, CaptureConfig.RawEventFormat.FRAMED);
  }

  /**
   * @param format how events with their body are written
   */
  EventFactory(
      SessionKeyDeriver deriver,
      ClientAddresses clientAddresses,
      CaptureSampling sampling,
      ProxyMetrics metrics,
      String upstream,
      CaptureConfig.RawEventFormat format) {
    this.deriver = deriver;
    this.clientAddresses = clientAddresses;
    this.sampling = sampling;
    this.metrics = metrics;
    this.upstream = upstream;
    this.format = format;
  }

  /**
   * The upstream as the raw events name it: {@code scheme://host:port}, the port always written
   * (the scheme's default when the URL has none), so that one engine has one name. Never the URL's
   * user information: a credential in {@code PREFIXLOG_PROXY_UPSTREAM} must not reach the topic.
   */
  static String upstreamLabel(java.net.URI upstream) {
    String scheme = upstream.getScheme().toLowerCase(java.util.Locale.ROOT);
    int port = upstream.getPort() >= 0 ? upstream.getPort() : scheme.equals("https") ? 443 : 80;
    return scheme + "://" + upstream.getHost().toLowerCase(java.util.Locale.ROOT) + ":" + port;
  }

  /**
   * The session key of a request (header order, body fields, the conversation's start, fallback
   * tuple: {@link SessionKeyDeriver}); the tuple's address follows {@code PREFIXLOG_CLIENT_ADDR}
   * ({@link ClientAddresses#forSessionKey}).
   */
  SessionKey sessionKey(
      Map<String, String> sessionHeaders, BodyFields fields, String clientAddr, String userAgent) {
    return deriver.derive(
        sessionHeaders, fields, clientAddresses.forSessionKey(clientAddr), userAgent);
  }

  /**
   * The body's fields for its session key: the conversation's start is decoded and digested only
   * when it can pick the key, not under a session header.
   *
   * @param sessionHeaders the request's session headers, lower-case names
   * @param length how many bytes of {@code body} hold it
   */
  BodyFields fields(Map<String, String> sessionHeaders, byte[] body, int length) {
    return deriver.hasSessionHeader(sessionHeaders)
        ? BodyFields.readTopLevel(body, 0, length)
        : BodyFields.read(body, 0, length);
  }

  EncodedEvent encode(CapturedExchange x) {
    // A truncated body is not whole JSON: BodyFields gives EMPTY.
    Map<String, String> sessionHeaders = x.sessionHeaders();
    BodyFields fields =
        x.sessionKey != null
            ? BodyFields.readTopLevel(x.body)
            : fields(sessionHeaders, x.body, x.body.length);
    SessionKey key =
        x.sessionKey != null
            ? x.sessionKey
            : sessionKey(sessionHeaders, fields, x.clientAddr, x.userAgent);
    // Addresses in forwarding headers follow PREFIXLOG_CLIENT_ADDR as client_addr does.
    Map<String, String> capturedHeaders = clientAddresses.headers(x.capturedHeaders());
    ResponseInfo response =
        new ResponseInfo(
            x.status,
            round(x.latencyMs),
            x.ttfbMs == null ? null : round(x.ttfbMs),
            x.usage,
            x.responseId,
            x.error);
    String model = fields.model() == null || fields.model().isEmpty() ? null : fields.model();
    CaptureSampling.Decision decision =
        sampling.decide(key.key(), model, x.path, x.status, x.error);
    if (metrics != null) {
      metrics.sampled(decision).increment();
    }
    EventWriter writer = writers.get();
    EventWriter.RequestFields request =
        new EventWriter.RequestFields(
            x.requestId,
            x.ts,
            key.key(),
            key.source(),
            clientAddresses.record(x.clientAddr),
            x.userAgent,
            capturedHeaders.isEmpty() ? null : capturedHeaders,
            x.method,
            x.path,
            model,
            x.requestId,
            x.clientRequestId);
    if (decision == CaptureSampling.Decision.SAMPLED_OUT) {
      // Stage two: the metadata and the chunk hashes, never the body. Hashing here, on the
      // publisher thread, keeps it off the request path (the proxy benchmark measures both).
      boolean utf8 = Utf8.isStrict(x.body, 0, x.body.length);
      byte[] json =
          writer.writeMetadataOnly(
              request,
              x.body.length,
              Sha256.hex(x.body),
              x.truncated,
              x.originalBodyLen,
              response,
              RawRequestEvent.SAMPLED_OUT,
              sampling.chunks(x.body, utf8),
              upstream);
      return new EncodedEvent(key.key(), json, x.requestId, x.ts);
    }
    byte[] value =
        format == CaptureConfig.RawEventFormat.FRAMED
            ? writer.writeFramed(
                request,
                x.body,
                Sha256.hex(x.body),
                x.truncated,
                x.originalBodyLen,
                response,
                upstream)
            : writer.write(
                request,
                x.body,
                Sha256.hex(x.body),
                x.truncated,
                x.originalBodyLen,
                response,
                upstream);
    return new EncodedEvent(key.key(), value, x.requestId, x.ts);
  }

  /** Microsecond precision is plenty, and keeps the JSON short. */
  private static double round(double millis) {
    return Math.round(millis * 1000.0) / 1000.0;
  }
}
