package io.prefixlog.core.http;

import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.core.config.ConfigTypes;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which {@code Host} and {@code Origin} headers prefixlog's own HTTP services answer: the metrics
 * and health endpoints, the stream app's state queries, the bridge's ingest endpoint and the UI.
 *
 * <p>Why: these services listen on loopback by default and have no other door. A web page whose DNS
 * name the attacker rebinds to 127.0.0.1 after it loaded can read them with the browser of anyone
 * who visits it: the browser calls it same-origin because the name did not change. The one thing
 * such a request cannot hide is its {@code Host} header, which names the attacker's domain. So a
 * name is answered only when it is known to be this machine's, as Jupyter and Django's {@code
 * ALLOWED_HOSTS} do: an IP address (a page can only reach an address it is itself served from),
 * {@code localhost} and its subdomains (RFC 6761: never resolved elsewhere), this machine's host
 * name, and the names the operator lists. A request without {@code Host} (HTTP/1.0, a container's
 * health check) is not a browser's and passes.
 *
 * <p>{@code Origin}: a browser sends it with every cross-origin {@code fetch} and every {@code
 * POST}, and a request whose origin is another site (or {@code null}: a sandboxed page, a file) is
 * refused, so that no page can make a browser act on these services. Programs send no {@code
 * Origin} and are not affected.
 */
public final class HostCheck {
  /** What the setting lists: names beside the ones always allowed. */
  public static final ConfigKey<HostCheck> SETTING =
      ConfigKey.of("PREFIXLOG_ALLOWED_HOSTS", configType())
          .defaultValue(of(List.of()))
          .documentedDefault("none")
          .doc(
              "host names a request's `Host` may carry on this service's own HTTP endpoints"
                  + " (metrics, health, state queries, ingest, UI), beside those always allowed: IP"
                  + " addresses, `localhost` and its subdomains, and this machine's host name;"
                  + " `.example.com` allows every name under it, `*` any name. Any other name, and"
                  + " an `Origin` that is not the service's own, is refused with 403 and counted:"
                  + " a page that rebinds its DNS name to this machine cannot read captured"
                  + " prompts. Name here what other services call this one by (a compose service"
                  + " name)");

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("\\[[0-9a-fA-F:.]+(%[^\\]]+)?]");
  private static final Pattern NAME = Pattern.compile("[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?\\.?");

  private final List<String> names;

  private HostCheck(List<String> names) {
    this.names = List.copyOf(names);
  }

  /**
   * The check with these names allowed (besides the ones always allowed); each is a host name, a
   * {@code .suffix} or {@code *}.
   */
  public static HostCheck of(List<String> names) {
    for (String name : names) {
      String bare = name.startsWith(".") ? name.substring(1) : name;
      if (!name.equals("*") && !NAME.matcher(bare.toLowerCase(Locale.ROOT)).matches()) {
        throw new IllegalArgumentException("'" + name + "' is not a host name, a .suffix or *");
      }
    }
    return new HostCheck(names.stream().map(n -> n.toLowerCase(Locale.ROOT)).toList());
  }

  /**
   * Why a request with these headers is refused, or empty when it is answered.
   *
   * @param host the {@code Host} header, or null
   * @param origin the {@code Origin} header, or null
   */
  public Optional<Reason> refusal(String host, String origin) {
    if (host != null && !host.isEmpty() && !allowedHost(host)) {
      return Optional.of(Reason.HOST);
    }
    if (origin != null && !sameOrigin(origin, host)) {
      return Optional.of(Reason.ORIGIN);
    }
    return Optional.empty();
  }

  /** Why a request was refused: its label in the refusals' metric, and its 403 body. */
  public enum Reason {
    HOST(
        "host",
        "Refused: this Host is not one of this service's names (PREFIXLOG_ALLOWED_HOSTS).\n"),
    ORIGIN("origin", "Refused: a request from another site's page.\n");

    private final String label;
    private final String body;

    Reason(String label, String body) {
      this.label = label;
      this.body = body;
    }

    /** The metric label. */
    public String label() {
      return label;
    }

    /** The 403 body: what was refused and which setting allows it, never the header's value. */
    public String body() {
      return body;
    }
  }

  boolean allowedHost(String header) {
    String name = hostName(header);
    if (name == null) {
      return false;
    }
    if (IPV4.matcher(name).matches() || IPV6.matcher(name).matches()) {
      return true;
    }
    String bare = name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    if (bare.equals("localhost") || bare.endsWith(".localhost") || bare.equals(MachineName.VALUE)) {
      return true;
    }
    for (String allowed : names) {
      if (allowed.equals("*")
          || allowed.equals(bare)
          || (allowed.startsWith(".")
              && (bare.endsWith(allowed) || bare.equals(allowed.substring(1))))) {
        return true;
      }
    }
    return false;
  }

  /** The host part of a {@code Host} header, lower case (IPv6 with its brackets), or null. */
  private static String hostName(String header) {
    String h = header.strip().toLowerCase(Locale.ROOT);
    int colon = h.startsWith("[") ? h.indexOf("]:") + 1 : h.lastIndexOf(':');
    if (colon > 0) {
      if (!h.substring(colon + 1).matches("\\d{1,5}")) {
        return null;
      }
      h = h.substring(0, colon);
    }
    return h.isEmpty() ? null : h;
  }

  /**
   * Whether {@code origin} names the authority the request was sent to (its scheme only sets the
   * default port: behind a TLS-terminating proxy the page is https and the service plain HTTP).
   */
  private static boolean sameOrigin(String origin, String host) {
    if (host == null || origin.equals("null")) {
      return false;
    }
    URI uri;
    try {
      uri = new URI(origin.strip());
    } catch (URISyntaxException e) {
      return false;
    }
    String scheme = uri.getScheme();
    if (uri.getHost() == null || !("http".equals(scheme) || "https".equals(scheme))) {
      return false;
    }
    int defaultPort = scheme.equals("https") ? 443 : 80;
    int originPort = uri.getPort() < 0 ? defaultPort : uri.getPort();
    String hostHeader = host.strip().toLowerCase(Locale.ROOT);
    String originHost = uri.getHost().toLowerCase(Locale.ROOT);
    String expected = originPort == defaultPort ? originHost : originHost + ":" + originPort;
    return hostHeader.equals(expected) || hostHeader.equals(originHost + ":" + originPort);
  }

  /**
   * This machine's host name, looked up once on the first check (not when the setting is declared:
   * the lookup may wait on a resolver).
   */
  private static final class MachineName {
    static final String VALUE = lookUp();

    private static String lookUp() {
      try {
        return InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
      } catch (UnknownHostException e) {
        return "localhost"; // no resolvable name: the name that is allowed anyway
      }
    }
  }

  /** The setting's type: names, comma separated, each checked as {@link #of} checks them. */
  public static ConfigType<HostCheck> configType() {
    return ConfigTypes.listOf(
        HostCheck::of, "host names, comma separated (`.suffix` for a domain, `*` for any)");
  }

  @Override
  public String toString() {
    return String.join(",", names);
  }
}
