package io.prefixlog.bridge.proxy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Arrays;

/**
 * A quick local check (not the benchmark, which compares with nginx under load): sequential 20 KB
 * chat POSTs directly and through the proxy, interleaved, medians and p99 printed side by side. It
 * catches stalls such as the 40 ms delayed-ACK one. No broker: events are dropped, which the
 * request path must not notice.
 */
public final class ProxyOverheadProbe {
  private ProxyOverheadProbe() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    try (TestUpstream upstream = new TestUpstream();
        CaptureProxy proxy =
            CaptureProxy.start(
                ProxyConfig.defaults(upstream.uri(), "127.0.0.1:1")
                    .withListen("127.0.0.1", 0)
                    .withMetricsPort(-1)
                    .withKafka(java.util.Map.of("max.block.ms", "10")))) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      String body =
          "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\""
              + "x".repeat(20_000)
              + "\"}]}";
      URI direct = upstream.uri().resolve("/v1/chat/completions");
      URI proxied = URI.create("http://127.0.0.1:" + proxy.port() + "/v1/chat/completions");
      long[] d = new long[rounds];
      long[] p = new long[rounds];
      for (int i = 0; i < rounds; i++) {
        d[i] = time(http, direct, body);
        p[i] = time(http, proxied, body);
      }
      Arrays.sort(d);
      Arrays.sort(p);
      System.out.printf(
          "direct  p50 %.3f ms  p99 %.3f ms%nproxied p50 %.3f ms  p99 %.3f ms%n",
          d[rounds / 2] / 1e6,
          d[rounds * 99 / 100] / 1e6,
          p[rounds / 2] / 1e6,
          p[rounds * 99 / 100] / 1e6);
    }
  }

  private static long time(HttpClient http, URI uri, String body) throws Exception {
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
    return System.nanoTime() - start;
  }
}
