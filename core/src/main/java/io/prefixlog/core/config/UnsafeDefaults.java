package io.prefixlog.core.config;

import io.prefixlog.core.session.SessionKeyDeriver;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses a development or placeholder credential where it would be reachable beyond this host.
 *
 * <p>The embedded stack ({@code up --demo}) runs on loopback with public development values, and
 * that stays allowed: only processes on this machine can reach it. The moment a service listens on
 * (or talks to) an address other machines can reach, a known value is as good as none: anyone can
 * recompute session keys from a public session secret, or read the bucket with a published key. So
 * a start with such a value is an error that names the variable, never a warning (an operator does
 * not read warnings of a container that came up fine). The value itself is never printed.
 */
public final class UnsafeDefaults {
  /**
   * Values that ship in this project's sources or docs, or are the well-known defaults of the
   * services it deploys (MinIO's, the old compose placeholders).
   */
  private static final Set<String> KNOWN =
      Set.of(
          SessionKeyDeriver.DEV_SECRET,
          "change-me-compose-session-secret",
          "prefixlog-dev-secret",
          "prefixlog-secret",
          "prefixlog",
          "iceberg",
          "minioadmin",
          "postgres",
          "password",
          "secret");

  /** Words that mark a value as one to be replaced. */
  private static final List<String> MARKERS =
      List.of(
          "change-me",
          "changeme",
          "change_me",
          "replace-me",
          "replaceme",
          "placeholder",
          "example",
          "dev-secret",
          "insecure");

  private UnsafeDefaults() {}

  /** True for a value known to be public, or that says it is to be replaced. */
  public static boolean isPlaceholder(String value) {
    if (value == null || value.isBlank()) {
      return true;
    }
    String v = value.strip().toLowerCase(Locale.ROOT);
    if (KNOWN.contains(v)) {
      return true;
    }
    for (String marker : MARKERS) {
      if (v.contains(marker)) {
        return true;
      }
    }
    // "aaaaaaaaaaaaaaaa", "0000…": long enough for the length checks, guessable all the same.
    return v.chars().distinct().count() < 4;
  }

  /**
   * True when {@code host} names only this machine: a loopback literal or a name resolving to
   * loopback addresses only. The wildcard ({@code 0.0.0.0}, {@code ::}) and anything unresolvable
   * are not loopback.
   */
  public static boolean isLoopback(String host) {
    if (host == null || host.isBlank()) {
      return false;
    }
    String h = host.strip();
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    try {
      InetAddress[] addresses = InetAddress.getAllByName(h);
      for (InetAddress address : addresses) {
        if (!address.isLoopbackAddress()) {
          return false;
        }
      }
      return addresses.length > 0;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The host of a URL, or null when it has none. */
  public static String hostOf(String url) {
    try {
      return URI.create(url).getHost();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Throws when {@code value} is a placeholder and {@code host} is not loopback.
   *
   * @param variable the setting that holds the credential, named in the error
   * @param value the credential (never printed)
   * @param where what reaches beyond loopback, such as {@code PREFIXLOG_PROXY_HOST=0.0.0.0}
   * @param fix how to set a safe value
   */
  public static void refuseBeyondLoopback(
      String variable, String value, String host, String where, String fix) {
    if (isPlaceholder(value) && !isLoopback(host)) {
      throw new ConfigException(
          variable
              + " is unset, or a public development or placeholder value, while "
              + where
              + " reaches beyond loopback: refusing to start. "
              + fix);
    }
  }
}
