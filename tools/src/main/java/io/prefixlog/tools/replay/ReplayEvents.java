package io.prefixlog.tools.replay;

import io.prefixlog.core.session.BodyFields;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the raw request event a capture would publish for one replayed request, as sent by a
 * client that puts the conversation id into {@code X-Session-ID}. There is no response (replay does
 * not call an engine), so {@code response} is absent, not invented.
 */
public final class ReplayEvents {
  public static final String SESSION_HEADER = "x-session-id";
  public static final String CLIENT_ADDR = "127.0.0.1";
  public static final String METHOD = "POST";
  public static final String PATH = "/v1/chat/completions";

  private final SessionKeyDeriver deriver;
  private final String userAgent;

  /**
   * @param secret the session key secret the stream app and bridge are configured with
   * @param version the tools' version, for {@code User-Agent: prefixlog-replay/<version>}
   */
  public ReplayEvents(String secret, String version) {
    this.deriver =
        new SessionKeyDeriver(
            Objects.requireNonNull(secret, "secret").getBytes(StandardCharsets.UTF_8),
            SessionKeyDeriver.DEFAULT_HEADERS);
    this.userAgent = "prefixlog-replay/" + Objects.requireNonNull(version, "version");
  }

  /** The session key the capture derives for a conversation's requests. */
  public SessionKey sessionKey(String conversationId) {
    return deriver.derive(headers(conversationId), BodyFields.EMPTY, CLIENT_ADDR, userAgent);
  }

  /**
   * @param key the conversation's {@link #sessionKey}
   * @param requestId a fresh id
   * @param nowMs the event time
   */
  public RawRequestEvent event(ChatRequest request, SessionKey key, String requestId, long nowMs) {
    byte[] body = request.body();
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return new RawRequestEvent(
        RawRequestEvent.SCHEMA_VERSION,
        requestId,
        nowMs,
        key.key(),
        key.source(),
        CLIENT_ADDR,
        userAgent,
        headers(request.conversationId()),
        METHOD,
        PATH,
        BodyFields.read(body).model(),
        encoded.text(),
        encoded.encoding().wireName(),
        (long) body.length,
        Sha256.hex(body),
        false,
        null,
        null);
  }

  private static Map<String, String> headers(String conversationId) {
    return Map.of(SESSION_HEADER, conversationId);
  }
}
