package io.prefixlog.bridge;

import io.prefixlog.bridge.kv.KvBridge;
import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.service.ServiceMain;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The ingest-bridge process: the capture proxy when {@code PREFIXLOG_PROXY_UPSTREAM} is set, the
 * KV-event subscriber when {@code PREFIXLOG_KV_ENDPOINTS} is set (at least one of them), one
 * metrics endpoint for both ({@code PREFIXLOG_METRICS_PORT}, served by the proxy when it runs), and
 * one shutdown hook that stops the proxy first (drain, flush) and then the subscriber.
 */
public final class BridgeMain {
  private BridgeMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.getenv()));
  }

  static int run(String[] args, Map<String, String> env) {
    return ServiceMain.run(
        "BridgeMain",
        "ingest-bridge",
        args,
        env,
        List.of(ProxyConfig.DEFINITION, KvBridgeConfig.DEFINITION),
        BridgeMain::configure);
  }

  private static ServiceMain.Service configure(Settings settings) {
    boolean proxy = settings.string("PREFIXLOG_PROXY_UPSTREAM", null) != null;
    boolean kv = settings.string("PREFIXLOG_KV_ENDPOINTS", null) != null;
    if (!proxy && !kv) {
      throw new ConfigException(
          "nothing to run: set PREFIXLOG_PROXY_UPSTREAM (the capture proxy) and/or"
              + " PREFIXLOG_KV_ENDPOINTS (the KV-event subscriber)");
    }
    ProxyConfig proxyConfig = proxy ? ProxyConfig.fromSettings(settings) : null;
    // With the proxy running, its metrics endpoint serves the subscriber's meters too.
    KvBridgeConfig kvConfig =
        kv
            ? KvBridgeConfig.fromSettings(
                proxy ? settings.with(Map.of("PREFIXLOG_METRICS_PORT", "-1")) : settings)
            : null;
    return new Bridge(proxyConfig, kvConfig == null ? null : new KvBridge(kvConfig));
  }

  /**
   * The subscriber first (the proxy's health includes it), then the proxy; stopped the other way.
   */
  private static final class Bridge implements ServiceMain.Service {
    private final ProxyConfig proxyConfig;
    private final KvBridge kvBridge;
    private CaptureProxy proxy;

    Bridge(ProxyConfig proxyConfig, KvBridge kvBridge) {
      this.proxyConfig = proxyConfig;
      this.kvBridge = kvBridge;
    }

    @Override
    public synchronized void start() throws IOException {
      if (kvBridge != null) {
        kvBridge.start();
      }
      if (proxyConfig != null) {
        // One registry per process: the proxy counts into the subscriber's (which outlives it),
        // so that each metric family appears once on the endpoint.
        proxy =
            kvBridge == null
                ? CaptureProxy.start(proxyConfig)
                : CaptureProxy.start(proxyConfig, kvBridge.metrics(), kvBridge::isHealthy);
      }
    }

    @Override
    public synchronized void close() {
      if (proxy != null) {
        proxy.close(); // first: stop accepting, drain, flush its producer
      }
      if (kvBridge != null) {
        kvBridge.close();
      }
    }
  }
}
