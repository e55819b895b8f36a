package io.prefixlog.bridge.proxy;

import io.prefixlog.core.session.TenantSource;
import io.vertx.core.MultiMap;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which headers are forwarded and which are captured.
 *
 * <p>Forwarding drops the hop-by-hop headers of RFC 9110 §7.6.1 — {@code Connection}, every header
 * it names, {@code Proxy-Connection}, {@code Keep-Alive}, {@code TE}, {@code Transfer-Encoding},
 * {@code Upgrade}, {@code Proxy-Authenticate}/{@code Proxy-Authorization} — and {@code Trailer}
 * (HTTP/1.1 framing is each hop's own); everything else passes unchanged, credentials included (the
 * engine needs them).
 *
 * <p>Capture is an allow-list, and a credential deny-list wins over it: {@code authorization},
 * {@code proxy-authorization}, {@code cookie}, {@code set-cookie}, {@code x-api-key}, {@code
 * api-key} and any name containing {@code auth}, {@code token}, {@code secret}, {@code password},
 * {@code cookie}, {@code api-key}, {@code apikey} or {@code api_key} are never captured. The
 * session headers are not captured either unless the allow-list names them: their value is what the
 * session key, a keyed hash, exists to hide, and the event says which header the key came from
 * ({@code session_key_source}).
 */
final class HeaderPolicy {
  static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "proxy-connection",
          "keep-alive",
          "te",
          "transfer-encoding",
          "upgrade",
          "trailer",
          "proxy-authenticate",
          "proxy-authorization");

  private static final Set<String> SECRET_NAMES =
      Set.of(
          "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key");

  private static final List<String> SECRET_PARTS =
      List.of("auth", "token", "secret", "password", "cookie", "api-key", "apikey", "api_key");

  private final Set<String> captured;

  HeaderPolicy(Collection<String> captureAllowList) {
    Set<String> names = new HashSet<>();
    for (String name : captureAllowList) {
      if (!isSecret(name)) {
        names.add(name.toLowerCase(Locale.ROOT));
      }
    }
    this.captured = Set.copyOf(names);
  }

  /** The capture allow-list of {@code PREFIXLOG_CAPTURE_HEADERS}. */
  static HeaderPolicy of(CaptureConfig capture) {
    return new HeaderPolicy(capture.captureHeaders());
  }

  /**
   * Whether a header an ingested event carries is stored: any but a session header the allow-list
   * does not name, whose value the event's session key hides.
   */
  static boolean storedFromIngest(String name, CaptureConfig capture) {
    String lower = name.toLowerCase(Locale.ROOT);
    return !capture.sessionHeaders().contains(lower) || capture.captureHeaders().contains(lower);
  }

  /** True for a credential header, which is never captured whatever the allow-list says. */
  static boolean isSecret(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    if (SECRET_NAMES.contains(lower)) {
      return true;
    }
    for (String part : SECRET_PARTS) {
      if (lower.contains(part)) {
        return true;
      }
    }
    return false;
  }

  /**
   * True for a header only the proxy writes into a captured request ({@link
   * TenantSource#RECORDED_HEADER}): a client that sends it is not believed.
   */
  static boolean isReserved(String lowerCaseName) {
    return lowerCaseName.equals(TenantSource.RECORDED_HEADER);
  }

  /** Copies the end-to-end headers of {@code from} into {@code to}. */
  static void copyEndToEnd(MultiMap from, MultiMap to) {
    Set<String> connectionListed = connectionTokens(from);
    for (Map.Entry<String, String> header : from) {
      String lower = header.getKey().toLowerCase(Locale.ROOT);
      if (!HOP_BY_HOP.contains(lower) && !connectionListed.contains(lower)) {
        to.add(header.getKey(), header.getValue());
      }
    }
  }

  /** The header names listed in {@code Connection} (lower case). */
  static Set<String> connectionTokens(MultiMap headers) {
    List<String> values = headers.getAll("connection");
    if (values.isEmpty()) {
      return Set.of();
    }
    Set<String> tokens = new HashSet<>();
    for (String value : values) {
      for (String token : value.split(",")) {
        String t = token.trim().toLowerCase(Locale.ROOT);
        if (!t.isEmpty()) {
          tokens.add(t);
        }
      }
    }
    return tokens;
  }

  /**
   * The captured headers of a request: allow-listed names only, never a credential; repeated
   * headers joined with {@code ", "} (RFC 9110 §5.3).
   */
  Map<String, String> capture(MultiMap headers) {
    Map<String, String> result = new TreeMap<>();
    for (Map.Entry<String, String> header : headers) {
      String lower = header.getKey().toLowerCase(Locale.ROOT);
      if (captured.contains(lower) && !isSecret(lower) && !isReserved(lower)) {
        result.merge(lower, header.getValue(), (a, b) -> a + ", " + b);
      }
    }
    return result;
  }

  /** Every request header by lower-case name (for the session key), repeated ones joined. */
  static Map<String, String> lowerCase(MultiMap headers, List<String> names) {
    Map<String, String> result = new TreeMap<>();
    for (String name : names) {
      List<String> values = headers.getAll(name);
      if (!values.isEmpty()) {
        result.put(name, String.join(", ", values));
      }
    }
    return result;
  }
}
