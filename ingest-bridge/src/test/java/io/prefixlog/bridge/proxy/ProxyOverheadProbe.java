package io.prefixlog.bridge.proxy;

import io.prefixlog.core.metrics.Meters;
import io.prefixlog.embedded.KafkaBroker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A quick local check, not the benchmark (which also runs nginx): {@code clients} concurrent
 * clients post 20 KB chat bodies to {@link TestUpstream} answering after {@code delayMs}, directly
 * and through the proxy (capture on, a real broker from {@code embedded}), in interleaved rounds;
 * prints p50 and p99 of each and the added latency, and the proxy's CPU is not separated (one JVM).
 * Arguments: {@code [clients=10] [delayMs=50] [seconds per phase=5] [rounds=3]}.
 */
public final class ProxyOverheadProbe {
  private ProxyOverheadProbe() {}

  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int delayMs = args.length > 1 ? Integer.parseInt(args[1]) : 50;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    Path dir = Files.createTempDirectory("prefixlog-probe");
    try (KafkaBroker broker = KafkaBroker.start(KafkaBroker.Options.defaults(dir));
        TestUpstream upstream = new TestUpstream()) {
      TopicReader.createTopic(broker.bootstrapServers(), "prefixlog.requests.raw");
      try (CaptureProxy proxy =
          CaptureProxy.start(
              ProxyConfig.defaults(upstream.uri(), broker.bootstrapServers())
                  .withListen("127.0.0.1", 0)
                  .with(MetricsConfig.PORT, -1))) {
        String body =
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\""
                + "x".repeat(20_400)
                + "\"}]}";
        String path = "/v1/chat/completions?delayMs=" + delayMs;
        URI direct = upstream.uri().resolve(path);
        URI proxied = URI.create("http://127.0.0.1:" + proxy.port() + path);
        run(clients, direct, body, 2); // warm-up
        run(clients, proxied, body, 2);
        for (int round = 1; round <= rounds; round++) {
          long[] upstreamBefore = proxyCpu();
          long[] d = run(clients, direct, body, seconds);
          long[] cpuBefore = proxyCpu();
          long[] p = run(clients, proxied, body, seconds);
          long[] cpuAfter = proxyCpu();
          System.out.printf(
              "round %d: direct p50 %.3f p99 %.3f ms %.1f rps | proxied p50 %.3f p99 %.3f ms"
                  + " %.1f rps | added p50 %+.3f p99 %+.3f ms | proxy CPU/request: event loop %.0f"
                  + " us, publisher %.0f us, producer I/O %.0f us (reference: the JDK upstream's"
                  + " CPU per direct request %.0f us)%n",
              round,
              pct(d, 50),
              pct(d, 99),
              d.length / (double) seconds,
              pct(p, 50),
              pct(p, 99),
              p.length / (double) seconds,
              pct(p, 50) - pct(d, 50),
              pct(p, 99) - pct(d, 99),
              (cpuAfter[0] - cpuBefore[0]) / 1e3 / p.length,
              (cpuAfter[1] - cpuBefore[1]) / 1e3 / p.length,
              (cpuAfter[2] - cpuBefore[2]) / 1e3 / p.length,
              (cpuBefore[3] - upstreamBefore[3]) / 1e3 / d.length);
        }
        System.out.printf(
            "upstream connections used (direct clients and proxy): %d%n",
            upstream.clientPorts.size());
        System.out.printf(
            "published %d, dropped %d%n",
            Meters.count(proxy.metrics(), ProxyMetrics.PUBLISHED),
            Meters.count(proxy.metrics(), ProxyMetrics.DROPPED, "reason", "queue_full"));
      }
    }
  }

  /** CPU nanoseconds of the proxy's threads: event loops, publisher, Kafka producer I/O. */
  private static long[] proxyCpu() {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long[] cpu = new long[4];
    for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null) {
        continue;
      }
      String name = info.getThreadName();
      int slot =
          name.startsWith("vert.x-eventloop")
              ? 0
              : name.equals("prefixlog-proxy-publisher")
                  ? 1
                  : name.contains("kafka-producer-network-thread")
                      ? 2
                      : name.startsWith("HTTP-Dispatcher") || name.startsWith("pool-") ? 3 : -1;
      if (slot >= 0) {
        cpu[slot] += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return cpu;
  }

  private static double pct(long[] sorted, int p) {
    return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)] / 1e6;
  }

  private static long[] run(int clients, URI uri, String body, int seconds) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    List<Future<List<Long>>> futures = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      futures.add(
          pool.submit(
              () -> {
                HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                List<Long> times = new ArrayList<>();
                while (System.nanoTime() < end) {
                  long start = System.nanoTime();
                  HttpResponse<byte[]> response =
                      http.send(
                          HttpRequest.newBuilder(uri)
                              .header("Content-Type", "application/json")
                              .POST(HttpRequest.BodyPublishers.ofString(body))
                              .build(),
                          HttpResponse.BodyHandlers.ofByteArray());
                  if (response.statusCode() != 200) {
                    throw new IllegalStateException("status " + response.statusCode());
                  }
                  times.add(System.nanoTime() - start);
                }
                return times;
              }));
    }
    List<Long> all = new ArrayList<>();
    for (Future<List<Long>> f : futures) {
      all.addAll(f.get());
    }
    pool.shutdown();
    long[] sorted = all.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(sorted);
    return sorted;
  }
}
