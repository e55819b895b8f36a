package io.prefixlog.core.session;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Derives {@code session_key} (docs/design.md#session-keys): a keyed hash (HMAC-SHA-256, truncated
 * to {@value #KEY_HEX_CHARS} hex digits) of the first session signal present, in this order:
 *
 * <ol>
 *   <li>the configured session headers ({@code header:<name>});
 *   <li>the body's {@code session_id} ({@code body:session_id});
 *   <li>the body's {@code user} ({@code body:user});
 *   <li>the fallback tuple (client address, model, user agent) joined to the body's conversation
 *       anchor ({@link BodyFields#conversationAnchor}: the model and the conversation's first user
 *       message), when the body has one ({@code conversation});
 *   <li>the fallback tuple alone ({@code fallback}).
 * </ol>
 *
 * <p>Explicit session ids (headers and {@code session_id}) share one namespace, so a client that
 * sends the same id once as a header and once in the body stays in one session; {@code user}, the
 * conversation and the fallback tuple have their own. Raw signal values never leave this class.
 *
 * <p>Most SDK clients send no session signal, and everything behind one gateway address would share
 * one fallback key: concurrent conversations interleaved under it, a few bases for all of them, one
 * partition. Every turn of a conversation repeats its start, so the anchor tells them apart without
 * any signal from the client. The address, model and user agent stay in the key, so the same
 * opening words from another address, model or agent are another session.
 *
 * <p>With a tenant ({@link TenantSource}), every namespace above is the tenant's own: the HMAC's
 * namespace is {@code <namespace>@<tenant id>}. Without one it is the namespace alone, so a
 * deployment without tenants keeps its keys.
 */
public final class SessionKeyDeriver {
  /** 128 bits: collisions stay negligible at any realistic number of sessions. */
  public static final int KEY_HEX_CHARS = 32;

  /** Headers tried first, in order: generic, Open WebUI's chat id, and agents' own. */
  public static final List<String> DEFAULT_HEADERS =
      List.of("x-session-id", "x-conversation-id", "x-openwebui-chat-id", "x-agent-session-id");

  /**
   * The development secret every component falls back to (with a warning) when none is configured,
   * so that a demo's replay, bridge and tools agree on keys. Never use it in production: with a
   * known secret, keys of guessable session ids can be recomputed.
   */
  public static final String DEV_SECRET = "prefixlog-dev-secret-change-me";

  private static final HexFormat HEX = HexFormat.of();

  private final SecretKeySpec secret;

  /**
   * One keyed MAC per thread, reused: {@code Mac.getInstance} and {@code init} (a provider lookup
   * and the key's pads) on every call cost more than the HMAC of a short value. {@code doFinal}
   * leaves it initialised with the same key for the next use.
   */
  private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);

  private final List<String> headerOrder;

  /**
   * @param secret the HMAC key; at least 16 bytes
   * @param headerOrder session headers to look for, in order; matched case-insensitively
   */
  public SessionKeyDeriver(byte[] secret, List<String> headerOrder) {
    Objects.requireNonNull(secret, "secret");
    if (secret.length < 16) {
      throw new IllegalArgumentException(
          "the session key secret must be at least 16 bytes, got " + secret.length);
    }
    this.secret = new SecretKeySpec(secret.clone(), "HmacSHA256");
    this.headerOrder =
        Objects.requireNonNull(headerOrder, "headerOrder").stream()
            .map(h -> h.toLowerCase(Locale.ROOT))
            .toList();
  }

  /** The configured session headers, lower case, in the order they are tried. */
  public List<String> headerOrder() {
    return headerOrder;
  }

  /**
   * Whether the request carries one of the configured session headers, which then picks its key
   * whatever the body holds: the body's conversation anchor need not be read.
   *
   * @param headers request headers with lower-case names
   */
  public boolean hasSessionHeader(Map<String, String> headers) {
    for (String header : headerOrder) {
      String value = headers.get(header);
      if (value != null && !value.isBlank()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Derives the key of one request.
   *
   * @param headers request headers with lower-case names
   * @param body the body's session fields and conversation anchor (may be {@link BodyFields#EMPTY})
   * @param clientAddr the client address, as much of it as keys may carry (the caller applies its
   *     address policy), or null
   * @param userAgent the {@code User-Agent} header, or null
   */
  public SessionKey derive(
      Map<String, String> headers, BodyFields body, String clientAddr, String userAgent) {
    return derive(null, headers, body, clientAddr, userAgent);
  }

  /**
   * Derives the key of one request of a tenant.
   *
   * @param tenant the request's {@linkplain TenantSource#isTenantId tenant id}, or null for none
   * @param headers request headers with lower-case names
   * @param body the body's session fields and conversation anchor (may be {@link BodyFields#EMPTY})
   * @param clientAddr the client address, as much of it as keys may carry, or null
   * @param userAgent the {@code User-Agent} header, or null
   */
  public SessionKey derive(
      String tenant,
      Map<String, String> headers,
      BodyFields body,
      String clientAddr,
      String userAgent) {
    Namespaces ns = Namespaces.of(tenant);
    for (String header : headerOrder) {
      String value = headers.get(header);
      if (value != null && !value.isBlank()) {
        return new SessionKey(mac(ns.session, value), "header:" + header);
      }
    }
    if (body.sessionId() != null && !body.sessionId().isBlank()) {
      return new SessionKey(mac(ns.session, body.sessionId()), "body:session_id");
    }
    if (body.user() != null && !body.user().isBlank()) {
      return new SessionKey(mac(ns.user, body.user()), "body:user");
    }
    String tuple =
        nullToEmpty(clientAddr)
            + '\u0000'
            + nullToEmpty(body.model())
            + '\u0000'
            + nullToEmpty(userAgent);
    byte[] anchor = body.conversationAnchor();
    if (anchor != null) {
      return new SessionKey(mac(ns.conversation, tuple, anchor), "conversation");
    }
    return new SessionKey(mac(ns.fallback, tuple), "fallback");
  }

  /**
   * The key of a session named by an explicit id (a session header's value or the body's {@code
   * session_id}), as {@link #derive} computes it: what {@code prefixlog erase --session-id} looks
   * up.
   */
  public String keyOfSessionId(String sessionId) {
    return keyOfSessionId(null, sessionId);
  }

  /** {@link #keyOfSessionId(String)} in a tenant's namespace (null: none). */
  public String keyOfSessionId(String tenant, String sessionId) {
    return mac(Namespaces.of(tenant).session, Objects.requireNonNull(sessionId, "sessionId"));
  }

  /** The key of a session named only by the body's {@code user}, as {@link #derive} computes it. */
  public String keyOfUser(String user) {
    return keyOfUser(null, user);
  }

  /** {@link #keyOfUser(String)} in a tenant's namespace (null: none). */
  public String keyOfUser(String tenant, String user) {
    return mac(Namespaces.of(tenant).user, Objects.requireNonNull(user, "user"));
  }

  /**
   * The first {@code hexChars} hex digits of the HMAC of a namespace and a value, with this
   * deriver's secret: what a {@link TenantSource} names a hashed tenant by.
   */
  String keyedHash(String namespace, String value, int hexChars) {
    Mac mac = macs.get();
    mac.update(namespace.getBytes(StandardCharsets.UTF_8));
    mac.update((byte) 0);
    return HEX.formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)), 0, hexChars / 2);
  }

  private String mac(String namespace, String value) {
    return keyedHash(namespace, value, KEY_HEX_CHARS);
  }

  /**
   * The value, a zero byte and the digest: the digest has a fixed length, so nothing is ambiguous.
   */
  private String mac(String namespace, String value, byte[] digest) {
    Mac mac = macs.get();
    mac.update(namespace.getBytes(StandardCharsets.UTF_8));
    mac.update((byte) 0);
    mac.update(value.getBytes(StandardCharsets.UTF_8));
    mac.update((byte) 0);
    byte[] out = mac.doFinal(digest);
    return HEX.formatHex(out, 0, KEY_HEX_CHARS / 2);
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(secret);
      return mac;
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is available in every Java runtime", e);
    }
  }

  /**
   * The HMAC namespaces of one tenant's keys. A tenant id holds no {@code @} and no zero byte, and
   * the namespace ends at the zero byte the MAC takes after it, so no two tenants' inputs meet.
   */
  private record Namespaces(String session, String user, String conversation, String fallback) {
    private static final Namespaces NONE =
        new Namespaces("session", "user", "conversation", "fallback");

    static Namespaces of(String tenant) {
      if (tenant == null) {
        return NONE;
      }
      if (!TenantSource.isTenantId(tenant)) {
        throw new IllegalArgumentException("not a tenant id: '" + tenant + "'");
      }
      String at = "@" + tenant;
      return new Namespaces("session" + at, "user" + at, "conversation" + at, "fallback" + at);
    }
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
