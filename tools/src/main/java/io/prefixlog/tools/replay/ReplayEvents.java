package io.prefixlog.tools.replay;

import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the raw request event a capture would publish for one replayed request, as sent by a
 * client that puts the conversation id into {@code X-Session-ID}, or by one that sends no session
 * header, as most SDK clients do (the capture then keys the conversation by its start). There is no
 * response (replay does not call an engine), so {@code response} is absent, not invented.
 */
public final class ReplayEvents {
  public static final String SESSION_HEADER = "x-session-id";
  public static final String CLIENT_ADDR = "127.0.0.1";
  public static final String METHOD = "POST";
  public static final String PATH = "/v1/chat/completions";

  private final SessionKeyDeriver deriver;
  private final String userAgent;
  private final boolean sessionHeader;

  /**
   * Events of a client that sends the conversation id as {@code X-Session-ID}.
   *
   * @param secret the session key secret the stream app and bridge are configured with
   * @param version the tools' version, for {@code User-Agent: prefixlog-replay/<version>}
   */
  public ReplayEvents(String secret, String version) {
    this(secret, version, true);
  }

  /**
   * @param secret the session key secret the stream app and bridge are configured with
   * @param version the tools' version, for {@code User-Agent: prefixlog-replay/<version>}
   * @param sessionHeader whether the client sends {@code X-Session-ID}; without it, the key is the
   *     one the capture derives from the body for a client at {@link #CLIENT_ADDR} whose address it
   *     keeps whole ({@code PREFIXLOG_CLIENT_ADDR=full})
   */
  public ReplayEvents(String secret, String version, boolean sessionHeader) {
    this.deriver =
        new SessionKeyDeriver(
            Objects.requireNonNull(secret, "secret").getBytes(StandardCharsets.UTF_8),
            SessionKeyDeriver.DEFAULT_HEADERS);
    this.userAgent = "prefixlog-replay/" + Objects.requireNonNull(version, "version");
    this.sessionHeader = sessionHeader;
  }

  /** The session key the capture derives for a conversation's requests sent with the header. */
  public SessionKey sessionKey(String conversationId) {
    return deriver.derive(headers(conversationId), BodyFields.EMPTY, CLIENT_ADDR, userAgent);
  }

  /** The session key the capture derives for one request of this client. */
  public SessionKey sessionKey(ChatRequest request) {
    if (sessionHeader) {
      return sessionKey(request.conversationId());
    }
    return deriver.derive(Map.of(), BodyFields.read(request.body()), CLIENT_ADDR, userAgent);
  }

  /**
   * @param key the conversation's {@link #sessionKey}
   * @param requestId a fresh id
   * @param nowMs the event time
   */
  public RawRequestEvent event(ChatRequest request, SessionKey key, String requestId, long nowMs) {
    byte[] body = request.body();
    return chatCompletion(
        requestId,
        nowMs,
        key,
        CLIENT_ADDR,
        userAgent,
        sessionHeader ? headers(request.conversationId()) : null,
        BodyFields.read(body).model(),
        body,
        null);
  }

  /**
   * The event a capture publishes for one {@code POST /v1/chat/completions}, the body whole (not
   * truncated): what every generator of captured traffic builds, replay's and the benchmarks'.
   *
   * @param headers the kept request headers, or null for none
   * @param response the engine's answer, or null when there was none
   */
  public static RawRequestEvent chatCompletion(
      String requestId,
      long tsMs,
      SessionKey key,
      String clientAddr,
      String userAgent,
      Map<String, String> headers,
      String model,
      byte[] body,
      ResponseInfo response) {
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return new RawRequestEvent(
        RawRequestEvent.SCHEMA_VERSION,
        requestId,
        tsMs,
        key.key(),
        key.source(),
        clientAddr,
        userAgent,
        headers,
        METHOD,
        PATH,
        model,
        encoded.text(),
        encoded.encoding().wireName(),
        (long) body.length,
        Sha256.hex(body),
        false,
        null,
        response,
        null,
        null,
        null,
        null,
        null);
  }

  private static Map<String, String> headers(String conversationId) {
    return Map.of(SESSION_HEADER, conversationId);
  }
}
