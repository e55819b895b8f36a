package io.prefixlog.tools.up;

import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.ListenConfig;
import io.prefixlog.bridge.proxy.MetricsConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.config.Settings;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The bridge's part of {@code up}: the capture proxy on 127.0.0.1 in front of the engine. With
 * {@code --demo} and no {@code --upstream} that engine is the bundled demo engine, which {@link
 * DemoPart} starts first and hands over as a URL, so that the demo's proxied traffic shows the
 * whole path: client → proxy → engine, capture → Kafka → stream app. Every other {@code
 * PREFIXLOG_*} proxy setting comes from the environment, as for the bridge on its own. Started last
 * and stopped first: it drains the exchanges in flight while the engine and the broker still run.
 */
final class BridgePart implements Part {
  /** vLLM's default address: where an engine started with {@code vllm serve} listens. */
  static final URI DEFAULT_UPSTREAM = URI.create("http://127.0.0.1:8000");

  static final List<Option> OPTIONS =
      List.of(
          Option.value(
              "upstream",
              "URL",
              DEFAULT_UPSTREAM + " (vLLM's default); with --demo: a bundled demo engine",
              "The OpenAI-compatible engine the capture proxy forwards to."),
          Option.value(
              "proxy-port",
              "PORT",
              Integer.toString(ListenConfig.DEFAULT_PORT),
              "The capture proxy's port on 127.0.0.1 (0: any free port)."),
          Option.value(
              "proxy-metrics-port",
              "PORT",
              Integer.toString(MetricsConfig.DEFAULT_PORT),
              "The proxy's /metrics and /health port (0: any free port, -1: none)."));

  private final CaptureProxy proxy;
  private final String proxyUrl;
  private final boolean demoEngine;
  private final String description;

  private BridgePart(CaptureProxy proxy, URI upstream, boolean demoEngine) {
    this.proxy = proxy;
    this.proxyUrl = "http://127.0.0.1:" + proxy.port();
    this.demoEngine = demoEngine;
    String metrics =
        proxy.metricsPort() > 0
            ? String.format(
                Locale.ROOT,
                "%n  proxy metrics http://127.0.0.1:%d/metrics   health: /health",
                proxy.metricsPort())
            : "";
    this.description =
        String.format(
            Locale.ROOT,
            "  bridge        %s  ->  %s%s (capture proxy)%s",
            proxyUrl,
            upstream,
            demoEngine ? " (bundled demo engine)" : "",
            metrics);
  }

  /** The validated options. {@code upstream} is null when none was given. */
  record Options(URI upstream, int port, int metricsPort, boolean demo) {
    static Options from(CommandLine line) throws UsageException {
      URI upstream = null;
      if (line.has("upstream")) {
        String value = line.value("upstream").orElseThrow();
        try {
          upstream = new URI(value);
        } catch (URISyntaxException e) {
          throw new UsageException(
              "--upstream must be a URL like http://127.0.0.1:8000, got " + value);
        }
        if (!"http".equals(upstream.getScheme()) || upstream.getHost() == null) {
          throw new UsageException(
              "--upstream must be an http:// URL with a host, like http://127.0.0.1:8000, got "
                  + value);
        }
      }
      long port = line.longValue("proxy-port", ListenConfig.DEFAULT_PORT, 0);
      long metricsPort = line.longValue("proxy-metrics-port", MetricsConfig.DEFAULT_PORT, -1);
      if (port > 65535 || metricsPort > 65535) {
        throw new UsageException("ports go up to 65535");
      }
      return new Options(upstream, (int) port, (int) metricsPort, line.has("demo"));
    }

    /** Whether {@code up} runs the bundled demo engine behind the proxy: --demo, no --upstream. */
    boolean wantsDemoEngine() {
      return upstream == null && demo;
    }
  }

  /**
   * Starts the proxy in front of {@code demoEngine} when given (the bundled demo engine's URL),
   * else {@code --upstream}, else {@link #DEFAULT_UPSTREAM}; it publishes to {@code bootstrap}
   * under {@code topicPrefix}.
   */
  static BridgePart start(
      Options options,
      Optional<URI> demoEngine,
      Map<String, String> env,
      String bootstrap,
      String topicPrefix)
      throws IOException {
    URI upstream =
        demoEngine.orElse(options.upstream() == null ? DEFAULT_UPSTREAM : options.upstream());
    Map<String, String> settings = new HashMap<>(env);
    settings.put("PREFIXLOG_PROXY_UPSTREAM", upstream.toString());
    settings.put("PREFIXLOG_BOOTSTRAP_SERVERS", bootstrap);
    settings.put("PREFIXLOG_TOPIC_PREFIX", topicPrefix);
    settings.put("PREFIXLOG_PROXY_HOST", "127.0.0.1");
    settings.put("PREFIXLOG_PROXY_PORT", Integer.toString(options.port()));
    // The stream app reads PREFIXLOG_METRICS_PORT too: the proxy gets its own.
    settings.put("PREFIXLOG_METRICS_PORT", Integer.toString(options.metricsPort()));
    try {
      return new BridgePart(
          CaptureProxy.start(ProxyConfig.fromSettings(Settings.of(settings))),
          upstream,
          demoEngine.isPresent());
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          "the capture proxy did not start on 127.0.0.1:" + options.port() + ": " + e.getMessage(),
          e);
    }
  }

  /** The proxy's base URL. */
  String proxyUrl() {
    return proxyUrl;
  }

  /** Whether the engine behind the proxy is the bundled demo engine (it serves any model name). */
  boolean demoEngine() {
    return demoEngine;
  }

  /** The lines {@code up} prints for the bridge. */
  String describe() {
    return description;
  }

  /**
   * Stops accepting, drains the exchanges in flight and flushes the proxy's producer. Idempotent.
   */
  @Override
  public void close() {
    proxy.close();
  }
}
