package io.prefixlog.bridge;

import io.prefixlog.bridge.kv.KvBridge;
import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.metrics.MetricsRegistry;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest-bridge process: the capture proxy when {@code PREFIXLOG_PROXY_UPSTREAM} is set, the
 * KV-event subscriber when {@code PREFIXLOG_KV_ENDPOINTS} is set (at least one of them), one
 * metrics endpoint for both ({@code PREFIXLOG_METRICS_PORT}, served by the proxy when it runs), and
 * one shutdown hook that stops the proxy first (drain, flush) and then the subscriber.
 */
public final class BridgeMain {
  private static final Logger LOGGER = LoggerFactory.getLogger(BridgeMain.class);

  /** Names a properties file with settings under their environment-variable names. */
  public static final String CONFIG_FILE_VARIABLE = "PREFIXLOG_CONFIG_FILE";

  private BridgeMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.getenv()));
  }

  static int run(String[] args, Map<String, String> env) {
    Map<String, String> environment = new HashMap<>(env);
    if (args.length == 2 && args[0].equals("--config")) {
      environment.put(CONFIG_FILE_VARIABLE, args[1]);
    } else if (args.length != 0) {
      System.err.println("usage: BridgeMain [--config FILE]");
      return 2;
    }
    ProxyConfig proxyConfig = null;
    KvBridgeConfig kvConfig = null;
    try {
      Settings settings = Settings.fromEnvironment(environment, CONFIG_FILE_VARIABLE);
      boolean proxy = settings.string("PREFIXLOG_PROXY_UPSTREAM", null) != null;
      boolean kv = settings.string("PREFIXLOG_KV_ENDPOINTS", null) != null;
      if (!proxy && !kv) {
        throw new ConfigException(
            "nothing to run: set PREFIXLOG_PROXY_UPSTREAM (the capture proxy) and/or"
                + " PREFIXLOG_KV_ENDPOINTS (the KV-event subscriber)");
      }
      if (proxy) {
        proxyConfig = ProxyConfig.fromSettings(settings);
      }
      if (kv) {
        // With the proxy running, its metrics endpoint serves the subscriber's metrics too.
        kvConfig =
            KvBridgeConfig.fromSettings(
                proxy ? settings.with(Map.of("PREFIXLOG_METRICS_PORT", "-1")) : settings);
      }
    } catch (ConfigException e) {
      System.err.println("prefixlog ingest-bridge: " + e.getMessage());
      return 2;
    }
    KvBridge kvBridge = kvConfig == null ? null : new KvBridge(kvConfig);
    CaptureProxy[] proxy = new CaptureProxy[1];
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  close(proxy[0], kvBridge);
                  stopped.countDown();
                },
                "prefixlog-bridge-shutdown"));
    try {
      if (kvBridge != null) {
        kvBridge.start();
      }
      if (proxyConfig != null) {
        List<MetricsRegistry> also = kvBridge == null ? List.of() : List.of(kvBridge.metrics());
        proxy[0] =
            CaptureProxy.start(
                proxyConfig, also, kvBridge == null ? () -> true : kvBridge::isHealthy);
      }
      stopped.await();
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (IOException | RuntimeException e) {
      LOGGER.atError().setMessage("ingest bridge failed to start").setCause(e).log();
      close(proxy[0], kvBridge);
      return 1;
    }
  }

  private static void close(CaptureProxy proxy, KvBridge kvBridge) {
    if (proxy != null) {
      proxy.close();
    }
    if (kvBridge != null) {
      kvBridge.close();
    }
  }
}
