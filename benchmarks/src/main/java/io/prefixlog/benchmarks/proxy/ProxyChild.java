package io.prefixlog.benchmarks.proxy;

import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.ListenConfig;
import io.prefixlog.bridge.proxy.MetricsConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.PublishConfig;
import io.prefixlog.bridge.proxy.SamplingConfig;
import io.prefixlog.bridge.proxy.WarmUpConfig;
import io.prefixlog.core.config.ConfigKey;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

/**
 * The CaptureProxy as the benchmark's child JVM, so that its CPU time is its own: {@code ProxyChild
 * <upstream URL> <bootstrap> <topic prefix> <port file>}. Listens on a free loopback port and
 * writes {@code "<port> <metrics port>"} to the port file once it serves; SIGTERM closes it (drain,
 * flush the producer).
 */
public final class ProxyChild {
  private ProxyChild() {}

  /**
   * Producer settings from system properties {@code prefixlog.bench.kafka.<setting>} (e.g. {@code
   * -Dprefixlog.bench.kafka.compression.type=none} through {@code prefixlog.bench.proxyJvmFlags}):
   * how a producer setting's effect is measured.
   */
  static Map<String, String> kafkaOverrides() {
    Map<String, String> kafka = new TreeMap<>();
    String prefix = "prefixlog.bench.kafka.";
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith(prefix)) {
        kafka.put(name.substring(prefix.length()), System.getProperty(name));
      }
    }
    return kafka;
  }

  /**
   * {@code config} with {@code key} set to the value of system property {@code
   * prefixlog.bench.<property>}, when that is given.
   */
  private static <T> ProxyConfig fromProperty(
      ProxyConfig config, String property, ConfigKey<T> key, Function<String, T> parse) {
    String value = System.getProperty("prefixlog.bench." + property);
    return value == null ? config : config.with(key, parse.apply(value));
  }

  private static Duration millis(String value) {
    return Duration.ofMillis(Long.parseLong(value));
  }

  public static void main(String[] args) throws Exception {
    ProxyConfig config =
        ProxyConfig.defaults(URI.create(args[0]), args[1])
            .withListen("127.0.0.1", 0)
            .with(PublishConfig.TOPIC_PREFIX, args[2])
            .with(MetricsConfig.PORT, 0)
            .with(
                MetricsConfig.HISTOGRAMS,
                !"histograms=false".equals(args.length > 4 ? args[4] : ""))
            .withKafka(kafkaOverrides());
    // -Dprefixlog.bench.publishIntervalMs=N: the publisher's interval
    // (PREFIXLOG_PROXY_PUBLISH_INTERVAL).
    // -Dprefixlog.bench.eventLoops=N: the proxy's event loops (PREFIXLOG_PROXY_EVENT_LOOPS).
    config =
        config.with(
            ListenConfig.EVENT_LOOPS,
            Integer.getInteger("prefixlog.bench.eventLoops", config.listen().eventLoops()));
    // -Dprefixlog.bench.warmupMs=N: the warm-up before the listener opens (PREFIXLOG_PROXY_WARMUP).
    config = fromProperty(config, "warmupMs", WarmUpConfig.DURATION, ProxyChild::millis);
    // -Dprefixlog.bench.warmupQuietMs=N: the JIT's quiet window that ends the warm-up
    // (PREFIXLOG_PROXY_WARMUP_QUIET; 0: the warm-up runs for its whole maximum).
    config = fromProperty(config, "warmupQuietMs", WarmUpConfig.QUIET, ProxyChild::millis);
    // -Dprefixlog.bench.sampleSessions=S: the share of sessions whose bodies are kept
    // (PREFIXLOG_SAMPLE_SESSIONS), so that sampling's cost is measured on the request path.
    config = fromProperty(config, "sampleSessions", SamplingConfig.SESSIONS, Double::valueOf);
    config = fromProperty(config, "publishIntervalMs", PublishConfig.INTERVAL, ProxyChild::millis);
    // -Dprefixlog.bench.capturePriority=N: the capture threads' Java priority
    // (PREFIXLOG_PROXY_CAPTURE_PRIORITY; reaches the OS only with -XX:ThreadPriorityPolicy=1).
    config =
        fromProperty(config, "capturePriority", PublishConfig.CAPTURE_PRIORITY, Integer::valueOf);
    CaptureProxy proxy = CaptureProxy.start(config);
    // -Dprefixlog.bench.affinity=…: threads pinned to CPUs (ThreadAffinity).
    String affinity = System.getProperty("prefixlog.bench.affinity");
    if (affinity != null) {
      ThreadAffinity.apply(affinity);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  proxy.close();
                  stopped.countDown();
                },
                "proxy-child-shutdown"));
    PortFile.write(Path.of(args[3]), proxy.port() + " " + proxy.metricsPort());
    stopped.await();
  }
}
