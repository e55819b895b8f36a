package io.prefixlog.tools.replay;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which captured headers a capture replay sends again: the ones that describe the request and its
 * client, above all the session headers ({@code X-Session-ID} and the others a deployment
 * configures), so that the replayed requests keep their sessions; not the ones that describe one
 * hop or one exchange.
 *
 * <p>Left out: {@code X-Request-Id} (each replayed request gets its own, or a capture of the replay
 * would collide with the original), the forwarding and client-address headers (they name the
 * original network path, and the capture may have rewritten their addresses), the headers the HTTP
 * client sets itself ({@code Host}, {@code Content-Length}, {@code Content-Type}, {@code
 * User-Agent}) and the hop-by-hop ones. A credential is never captured (the proxy's allow-list
 * refuses them); a name that looks like one is refused here too, because a dump file can be edited
 * by hand.
 */
final class ReplayHeaders {
  private static final Set<String> NOT_REPLAYED =
      Set.of(
          "x-request-id",
          "x-forwarded-for",
          "x-forwarded-proto",
          "x-forwarded-host",
          "x-forwarded-port",
          "x-real-ip",
          "forwarded",
          "true-client-ip",
          "cf-connecting-ip",
          "via",
          "host",
          "content-length",
          "content-type",
          "content-encoding",
          "user-agent",
          "connection",
          "proxy-connection",
          "keep-alive",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "expect");

  private static final List<String> CREDENTIAL_PARTS =
      List.of("auth", "token", "secret", "password", "cookie", "api-key", "apikey", "api_key");

  /** How {@code session_key_source} names a key derived from a header. */
  private static final String HEADER_SOURCE = "header:";

  private ReplayHeaders() {}

  /**
   * The headers of {@code captured} that are sent again, and the session header its key came from
   * ({@code session_key_source} {@code header:NAME}), which the proxy does not capture: sent with
   * the session key as its value, a pseudonym that keeps the replayed requests in their sessions as
   * the original value did.
   */
  static Map<String, String> replayable(
      Map<String, String> captured, String sessionKeySource, String sessionKey) {
    Map<String, String> headers = replayable(captured);
    if (sessionKeySource != null && sessionKeySource.startsWith(HEADER_SOURCE)) {
      String name = sessionKeySource.substring(HEADER_SOURCE.length()).toLowerCase(Locale.ROOT);
      if (isToken(name) && !looksLikeCredential(name) && !NOT_REPLAYED.contains(name)) {
        headers.putIfAbsent(name, sessionKey);
      }
    }
    return headers;
  }

  /** The headers of {@code captured} (lower-case names) that are sent again. */
  static Map<String, String> replayable(Map<String, String> captured) {
    Map<String, String> headers = new TreeMap<>();
    if (captured == null) {
      return headers;
    }
    captured.forEach(
        (name, value) -> {
          String lower = name.toLowerCase(Locale.ROOT);
          if (!NOT_REPLAYED.contains(lower)
              && !looksLikeCredential(lower)
              && isToken(lower)
              && value != null
              && isHeaderValue(value)) {
            headers.put(lower, value);
          }
        });
    return headers;
  }

  static boolean looksLikeCredential(String lowerName) {
    for (String part : CREDENTIAL_PARTS) {
      if (lowerName.contains(part)) {
        return true;
      }
    }
    return false;
  }

  /** An HTTP field name (RFC 9110 token), which the HTTP client requires. */
  private static boolean isToken(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** No line breaks or other control characters, which the HTTP client would refuse. */
  private static boolean isHeaderValue(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return false;
      }
    }
    return true;
  }
}
