package io.prefixlog.benchmarks.proxy;

import io.prefixlog.bridge.proxy.CaptureProxy;
import io.prefixlog.bridge.proxy.ListenConfig;
import io.prefixlog.bridge.proxy.MetricsConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.PublishConfig;
import io.prefixlog.bridge.proxy.SamplingConfig;
import io.prefixlog.bridge.proxy.WarmUpConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;

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
    String warmup = System.getProperty("prefixlog.bench.warmupMs");
    if (warmup != null) {
      config = config.with(WarmUpConfig.DURATION, Duration.ofMillis(Long.parseLong(warmup)));
    }
    // -Dprefixlog.bench.warmupQuietMs=N: the JIT's quiet window that ends the warm-up
    // (PREFIXLOG_PROXY_WARMUP_QUIET; 0: the warm-up runs for its whole maximum).
    String quiet = System.getProperty("prefixlog.bench.warmupQuietMs");
    if (quiet != null) {
      config = config.with(WarmUpConfig.QUIET, Duration.ofMillis(Long.parseLong(quiet)));
    }
    // -Dprefixlog.bench.sampleSessions=S: the share of sessions whose bodies are kept
    // (PREFIXLOG_SAMPLE_SESSIONS), so that sampling's cost is measured on the request path.
    String sample = System.getProperty("prefixlog.bench.sampleSessions");
    if (sample != null) {
      config = config.with(SamplingConfig.SESSIONS, Double.parseDouble(sample));
    }
    String interval = System.getProperty("prefixlog.bench.publishIntervalMs");
    if (interval != null) {
      config = config.with(PublishConfig.INTERVAL, Duration.ofMillis(Long.parseLong(interval)));
    }
    // -Dprefixlog.bench.capturePriority=N: the capture threads' Java priority
    // (PREFIXLOG_PROXY_CAPTURE_PRIORITY; reaches the OS only with -XX:ThreadPriorityPolicy=1).
    String priority = System.getProperty("prefixlog.bench.capturePriority");
    if (priority != null) {
      config = config.with(PublishConfig.CAPTURE_PRIORITY, Integer.parseInt(priority));
    }
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
