package io.prefixlog.bridge.proxy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigType;
import io.prefixlog.core.config.ConfigTypes;
import io.prefixlog.core.config.ConfigValues;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;

/**
 * The engine the proxy forwards to and how: its origin, the headers the proxy adds, the timeouts,
 * and the connections (pooled per event loop) with the size of each read from them.
 */
public record UpstreamConfig(
    URI origin,
    boolean setSessionHeader,
    boolean forwardedHeaders,
    Duration connectTimeout,
    Duration idleTimeout,
    int maxConnections,
    int receiveBuffer,
    Duration keepAlive) {
  public static final ConfigKey<URI> ORIGIN =
      ConfigKey.of("PREFIXLOG_PROXY_UPSTREAM", new UpstreamType())
          .required("the engine's base URL, such as http://127.0.0.1:8000")
          .documentedDefault("required for the proxy")
          .doc(
              "the engine's origin, `http://host:port` (or `https://`); request paths are"
                  + " forwarded unchanged");

  public static final ConfigKey<Boolean> SET_SESSION_HEADER =
      ConfigKey.of("PREFIXLOG_PROXY_SET_SESSION_HEADER", ConfigTypes.bool())
          .defaultValue(false)
          .doc("send `X-Session-ID: <session_key>` upstream when the client sent none");

  public static final ConfigKey<Boolean> FORWARDED_HEADERS =
      ConfigKey.of("PREFIXLOG_PROXY_FORWARDED_HEADERS", ConfigTypes.bool())
          .defaultValue(true)
          .doc("add `X-Forwarded-For`/`-Proto`/`-Host`");

  public static final ConfigKey<Duration> CONNECT_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_CONNECT_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(5))
          .doc("upstream connect timeout (→ 504)");

  public static final ConfigKey<Duration> IDLE_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_UPSTREAM_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofMinutes(10))
          .doc(
              "longest upstream silence, before the status or between chunks (→ 504, or a reset"
                  + " mid-stream)");

  /**
   * In all, not per event loop: each exchange with an engine connection may be one a client stops
   * reading, and each of those holds a few reads of the engine's stream (up to ~250 KiB with 16 KB
   * events; benchmarks/README.md, "Stalled clients"). The number of them is what the container's
   * memory must hold, so it must not grow with the host's cores: 1,024 of them fit the image's 2
   * GiB beside its heap. 512 per loop, as this was, made 4,096 of them (~1 GiB) on 8 cores.
   */
  public static final ConfigKey<Integer> MAX_CONNECTIONS =
      ConfigKey.of("PREFIXLOG_PROXY_MAX_CONNECTIONS", ConfigTypes.integer(1, 100_000))
          .defaultValue(1024)
          .doc(
              "connections to the engine, all event loops together (each loop pools its share,"
                  + " at least one); exchanges beyond them wait for one. Each may be held by a"
                  + " client that stops reading, with up to ~250 KiB of the engine's stream, so"
                  + " this bounds that memory whatever the number of cores");

  /**
   * 16 KiB: the chunks of the engine's stream that a paused exchange holds (the proxy pauses the
   * engine when a client falls behind, and what it had read stays queued until the client reads)
   * each keep the read buffer they were cut from. With the JVM's adaptive read sizes 1,000 clients
   * that stopped reading a stream of 200-byte events held 597 MiB of direct memory (454 MiB with 16
   * KB events), which with the image's 1.5 GiB heap is more than its 2 GiB container; with reads of
   * 16 KiB, 56 MiB (160 MiB), and 8 KiB 30 MiB (SlowClientsIT; benchmarks/README.md, "Stalled
   * clients"). It is also the socket's receive buffer (Vert.x sets both): the kernel doubles it, a
   * 32 KiB window toward an engine on the same network.
   */
  public static final ConfigKey<Long> RECEIVE_BUFFER =
      ConfigKey.of("PREFIXLOG_PROXY_UPSTREAM_RECEIVE_BUFFER", ConfigTypes.size(4L << 10, 16L << 20))
          .defaultValue(16L << 10)
          .doc(
              "the size of each read from an engine's connection, and its socket receive buffer:"
                  + " what a client that stops reading a stream makes the proxy hold is a few of"
                  + " these (~56 KiB per stalled client at 16 KiB, ~0.6 MiB with adaptive reads)");

  public static final ConfigKey<Duration> KEEPALIVE_TIMEOUT =
      ConfigKey.of("PREFIXLOG_PROXY_KEEPALIVE_TIMEOUT", ConfigTypes.positiveDuration())
          .defaultValue(Duration.ofSeconds(60))
          .doc("idle upstream connections are closed after this");

  static UpstreamConfig from(ConfigValues values) {
    return new UpstreamConfig(
        values.get(ORIGIN),
        values.get(SET_SESSION_HEADER),
        values.get(FORWARDED_HEADERS),
        values.get(CONNECT_TIMEOUT),
        values.get(IDLE_TIMEOUT),
        values.get(MAX_CONNECTIONS),
        Math.toIntExact(values.get(RECEIVE_BUFFER)),
        values.get(KEEPALIVE_TIMEOUT));
  }

  /** The origin's port, the scheme's default when the URL gives none. */
  int port() {
    if (origin.getPort() > 0) {
      return origin.getPort();
    }
    return tls() ? 443 : 80;
  }

  boolean tls() {
    return origin.getScheme().equalsIgnoreCase("https");
  }

  /** Each event loop's pool: its share of {@link #maxConnections()}, at least one. */
  int connectionsPerLoop(int eventLoops) {
    return Math.max(1, (maxConnections + eventLoops - 1) / eventLoops);
  }

  /** An engine's origin: http(s), a host, no path, query or fragment. */
  private static final class UpstreamType implements ConfigType<URI> {
    @Override
    public URI parse(String key, String raw) {
      try {
        return check(key, new URI(raw.trim()));
      } catch (URISyntaxException e) {
        throw new ConfigException(key + "=" + raw + ": not a URL (" + e.getReason() + ")");
      }
    }

    @Override
    public URI check(String key, URI uri) {
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new ConfigException(key + "=" + uri + ": expected an http:// or https:// URL");
      }
      if (uri.getHost() == null) {
        throw new ConfigException(key + "=" + uri + ": the URL names no host");
      }
      String path = uri.getRawPath();
      if ((path != null && !path.isEmpty() && !path.equals("/"))
          || uri.getRawQuery() != null
          || uri.getRawFragment() != null) {
        throw new ConfigException(
            key
                + "="
                + uri
                + ": give the engine's origin only (scheme, host, port); request paths are"
                + " forwarded unchanged");
      }
      return uri;
    }

    @Override
    public String format(URI value) {
      return value.toString();
    }

    @Override
    public String describe() {
      return "http(s) URL";
    }
  }
}
