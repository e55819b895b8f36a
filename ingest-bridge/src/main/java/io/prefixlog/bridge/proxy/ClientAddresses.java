package io.prefixlog.bridge.proxy;

import io.prefixlog.bridge.proxy.CaptureConfig.ClientAddrMode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** How a client address is written into an event: as seen, truncated, hashed or left out. */
final class ClientAddresses {
  private final ClientAddrMode mode;
  private final SecretKeySpec secret;

  ClientAddresses(ClientAddrMode mode, String secret) {
    this.mode = mode;
    this.secret = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /** As {@code PREFIXLOG_CLIENT_ADDR} says, hashed with the session secret. */
  static ClientAddresses of(CaptureConfig capture) {
    return new ClientAddresses(capture.clientAddr(), capture.sessionSecret());
  }

  /**
   * The address to record, or null (omitted, or unknown). An address already in the mode's form (an
   * ingest line from a middleware that applied the same policy) is kept as it is.
   */
  String record(String address) {
    if (address == null || address.isEmpty()) {
      return null;
    }
    switch (mode) {
      case FULL:
        return address;
      case OMIT:
        return null;
      case HASH:
        return address.matches("h:[0-9a-f]{16}") ? address : "h:" + hash(address);
      case TRUNCATE:
        return isTruncated(address) ? address : truncate(address);
      default:
        throw new IllegalStateException("unknown mode " + mode);
    }
  }

  /**
   * The address as the fallback and conversation session keys may use it: no more of it than the
   * event may carry. Whoever holds the session secret can enumerate every IPv4 address against a
   * fallback key in minutes (against a conversation key too, given the conversation's first user
   * message); with {@code omit} the key would otherwise be the one place the address survives.
   * {@code hash} keeps the whole address here: the recorded hash is keyed by the same secret, so it
   * already gives the address to a holder of the secret, and to nobody else.
   */
  String forSessionKey(String address) {
    if (address == null || address.isEmpty()) {
      return null;
    }
    return switch (mode) {
      case FULL, HASH -> address;
      case TRUNCATE -> truncate(address);
      case OMIT -> null;
    };
  }

  /**
   * Headers whose values are client (or proxy) addresses: comma-separated lists of them, except
   * {@code forwarded} (RFC 7239), whose {@code for=} and {@code by=} parameters hold them.
   */
  static final Set<String> ADDRESS_HEADERS =
      Set.of(
          "x-forwarded-for",
          "x-original-forwarded-for",
          "x-real-ip",
          "x-client-ip",
          "x-cluster-client-ip",
          "true-client-ip",
          "cf-connecting-ip",
          "fastly-client-ip",
          "forwarded");

  /**
   * The captured headers with every address in them written as {@link #record} writes {@code
   * client_addr}: left as they are ({@code full}), removed ({@code omit}), or each address hashed
   * or truncated in place. Behind a load balancer the real client address is in these headers, so a
   * policy that applied to {@code client_addr} alone would store it anyway.
   */
  Map<String, String> headers(Map<String, String> captured) {
    if (mode == ClientAddrMode.FULL || captured.isEmpty()) {
      return captured;
    }
    Map<String, String> result = new TreeMap<>();
    captured.forEach(
        (name, value) -> {
          if (!ADDRESS_HEADERS.contains(name)) {
            result.put(name, value);
          } else if (mode != ClientAddrMode.OMIT) {
            result.put(name, name.equals("forwarded") ? forwarded(value) : addressList(value));
          }
        });
    return result;
  }

  private String addressList(String value) {
    List<String> recorded = new ArrayList<>();
    for (String token : value.split(",")) {
      String address = token.trim();
      if (!address.isEmpty()) {
        recorded.add(record(address));
      }
    }
    return String.join(", ", recorded);
  }

  /** RFC 7239: elements by {@code ,}, pairs by {@code ;}; {@code for}/{@code by} hold nodes. */
  private String forwarded(String value) {
    List<String> elements = new ArrayList<>();
    for (String element : value.split(",")) {
      List<String> pairs = new ArrayList<>();
      for (String pair : element.trim().split(";")) {
        int eq = pair.indexOf('=');
        String key = eq < 0 ? "" : pair.substring(0, eq).trim().toLowerCase(Locale.ROOT);
        if (key.equals("for") || key.equals("by")) {
          String recorded = record(node(pair.substring(eq + 1).trim()));
          pairs.add(key + "=\"" + (recorded == null ? "unknown" : recorded) + "\"");
        } else if (!pair.isBlank()) {
          pairs.add(pair.trim());
        }
      }
      elements.add(String.join(";", pairs));
    }
    return String.join(", ", elements);
  }

  /** The address of a {@code Forwarded} node: unquoted, brackets and port removed. */
  private static String node(String value) {
    String node =
        value.startsWith("\"") && value.endsWith("\"") && value.length() > 1
            ? value.substring(1, value.length() - 1)
            : value;
    if (node.startsWith("[")) {
      int close = node.indexOf(']');
      return close > 0 ? node.substring(1, close) : node;
    }
    int colon = node.indexOf(':');
    return colon > 0 && node.indexOf(':', colon + 1) < 0 ? node.substring(0, colon) : node;
  }

  /** IPv4 to its /24 ({@code 10.1.2.0/24}), IPv6 to its /48. */
  static String truncate(String address) {
    if (!isLiteral(address)) {
      return "unknown";
    }
    try {
      byte[] bytes = InetAddress.getByName(address).getAddress();
      int keep = bytes.length == 4 ? 3 : 6;
      for (int i = keep; i < bytes.length; i++) {
        bytes[i] = 0;
      }
      return InetAddress.getByAddress(bytes).getHostAddress() + "/" + (keep * 8);
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }

  /** {@code a.b.c.0/24} or an IPv6 literal with {@code /48}, as {@link #truncate} writes them. */
  private static boolean isTruncated(String address) {
    int slash = address.indexOf('/');
    if (slash < 0) {
      return false;
    }
    String suffix = address.substring(slash);
    String literal = address.substring(0, slash);
    return (suffix.equals("/24") || suffix.equals("/48"))
        && isLiteral(literal)
        && truncate(literal).equals(address);
  }

  /** Only IP literals: never a DNS lookup. */
  private static boolean isLiteral(String address) {
    return address.matches("[0-9.]+") || address.matches("[0-9a-fA-F:.]+") && address.contains(":");
  }

  private String hash(String address) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(secret);
      mac.update("client_addr".getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      return HexFormat.of().formatHex(mac.doFinal(address.getBytes(StandardCharsets.UTF_8)), 0, 8);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is available in every Java runtime", e);
    }
  }
}
