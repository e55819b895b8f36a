package io.prefixlog.bridge.proxy;

import io.prefixlog.bridge.proxy.ProxyConfig.ClientAddrMode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
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

  /** The address to record, or null (omitted, or unknown). */
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
        return "h:" + hash(address);
      case TRUNCATE:
        return truncate(address);
      default:
        throw new IllegalStateException("unknown mode " + mode);
    }
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
