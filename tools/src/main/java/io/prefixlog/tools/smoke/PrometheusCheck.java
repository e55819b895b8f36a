package io.prefixlog.tools.smoke;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * What the compose project's Prometheus sees, through its HTTP API on the published port: every
 * scrape target up (each stream-app instance and the bridge), prefixlog's rule groups loaded, no
 * critical alert firing, and the bridge's latency histograms counting the requests sent.
 */
final class PrometheusCheck {
  static final Set<String> RULE_GROUPS =
      Set.of("prefixlog-capture", "prefixlog-stream-app", "prefixlog-kv-events");

  private final URI base;
  private final HttpClient client = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  PrometheusCheck(int port) {
    this.base = URI.create("http://127.0.0.1:" + port);
  }

  /**
   * Waits until {@code streamApps} stream-app targets and the bridge are up and the bridge's TTFB
   * histogram has counted {@code requests}; then checks the rules and the alerts.
   *
   * @return a one-line summary
   */
  String await(long streamApps, long requests, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "no answer";
    while (true) {
      List<String> up = new ArrayList<>();
      List<String> down = new ArrayList<>();
      for (JsonNode target :
          get("/api/v1/targets?state=active").path("data").path("activeTargets")) {
        String name =
            target.path("labels").path("job").asText() + " " + target.path("scrapeUrl").asText();
        ("up".equals(target.path("health").asText()) ? up : down).add(name);
      }
      long streamAppTargets = up.stream().filter(t -> t.startsWith("stream-app ")).count();
      boolean bridge = up.stream().anyMatch(t -> t.startsWith("ingest-bridge "));
      double counted = scalar("sum(prefixlog_proxy_ttfb_seconds_count)");
      if (down.isEmpty() && streamAppTargets == streamApps && bridge && counted >= requests) {
        return String.format(
            Locale.ROOT,
            "Prometheus: %d targets up (%d stream-app), %d requests in the TTFB histogram, %s",
            up.size(),
            streamAppTargets,
            (long) counted,
            rulesAndAlerts());
      }
      last = "up " + up + ", down " + down + ", TTFB count " + counted;
      if (System.nanoTime() > deadline) {
        throw new SmokeFailure("Prometheus did not see every target and request: " + last);
      }
      TimeUnit.SECONDS.sleep(3);
    }
  }

  private String rulesAndAlerts() throws IOException, InterruptedException {
    Set<String> groups = new TreeSet<>();
    int rules = 0;
    for (JsonNode group : get("/api/v1/rules").path("data").path("groups")) {
      groups.add(group.path("name").asText());
      rules += group.path("rules").size();
    }
    if (!groups.containsAll(RULE_GROUPS)) {
      throw new SmokeFailure(
          "Prometheus loaded the rule groups " + groups + ", not " + RULE_GROUPS);
    }
    List<String> critical = new ArrayList<>();
    for (JsonNode alert : get("/api/v1/alerts").path("data").path("alerts")) {
      if ("critical".equals(alert.path("labels").path("severity").asText())
          && "firing".equals(alert.path("state").asText())) {
        critical.add(alert.path("labels").path("alertname").asText());
      }
    }
    if (!critical.isEmpty()) {
      throw new SmokeFailure("critical alerts firing in a healthy run: " + critical);
    }
    return rules + " alert rules loaded, no critical alert firing";
  }

  private double scalar(String query) throws IOException, InterruptedException {
    JsonNode result =
        get("/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8))
            .path("data")
            .path("result");
    return result.isEmpty() ? 0 : result.get(0).path("value").get(1).asDouble();
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response;
    try {
      response =
          client.send(
              HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return json.createObjectNode();
    }
    return response.statusCode() == 200 ? json.readTree(response.body()) : json.createObjectNode();
  }
}
