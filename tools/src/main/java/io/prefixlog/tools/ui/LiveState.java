package io.prefixlog.tools.ui;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.streams.query.StateEndpoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The session page's "live state" panel: the session's state in the stream app, asked of any
 * instance's {@code GET /state/sessions/{key}} (it answers from the instance that holds the key),
 * rendered as it comes. The UI keeps none of it, so two UIs behind a load balancer show the same.
 */
final class LiveState {
  static final String STREAM_APP_ENV = "PREFIXLOG_UI_STREAM_APP";
  static final String TOKEN_ENV = "PREFIXLOG_STATE_TOKEN";
  private static final Duration TIMEOUT = Duration.ofSeconds(3);

  private final String baseUrl;
  private final String token;
  private final HttpClient http;

  /**
   * @param baseUrl the stream app's metrics endpoint ({@code http://host:9464}), or null: not
   *     configured
   * @param token the stream app's {@code PREFIXLOG_STATE_TOKEN}, or null
   */
  LiveState(String baseUrl, String token) {
    this.baseUrl = baseUrl == null ? null : baseUrl.replaceAll("/+$", "");
    this.token = token;
    this.http = baseUrl == null ? null : HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  }

  /** The panel for one session: asks the stream app now. */
  String panel(String sessionKey) {
    if (baseUrl == null) {
      return render(0, null, null);
    }
    URI uri = URI.create(baseUrl + StateEndpoint.pathOf(sessionKey));
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return render(response.statusCode(), response.body(), null);
    } catch (IOException e) {
      return render(-1, null, baseUrl + " did not answer: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return render(-1, null, "interrupted");
    }
  }

  /**
   * The panel's HTML for one answer.
   *
   * @param status 0: not configured; -1: no answer ({@code problem} says why); else the HTTP status
   */
  static String render(int status, String body, String problem) {
    StringBuilder b =
        new StringBuilder("<section id=\"live-state\" aria-labelledby=\"live-state-h\">")
            .append("<h2 id=\"live-state-h\">Live state in the stream app</h2>");
    if (status == 0) {
      return b.append(
              "<p class=\"status\">Not configured: start the UI with <code>--stream-app"
                  + " http://HOST:9464</code> (or ")
          .append(STREAM_APP_ENV)
          .append(") and the stream app with <code>PREFIXLOG_APPLICATION_SERVER</code>.</p>")
          .append("</section>")
          .toString();
    }
    JsonNode node = null;
    if (body != null) {
      try {
        node = Json.mapper().readTree(body);
      } catch (IOException e) {
        problem = "HTTP " + status + ", not JSON";
      }
    }
    if (status == 200 && node != null && node.has("chain")) {
      return b.append(state(node)).append("</section>").toString();
    }
    String word = node == null ? "" : node.path("status").asText("");
    String reason = node == null ? problem : node.path("reason").asText("HTTP " + status);
    if (problem == null && node == null) {
      reason = "HTTP " + status;
    }
    String lead =
        switch (word) {
          case "unknown" -> "No live state";
          case "rebuilding" -> "Rebuilding, ask again shortly";
          case "disabled" -> "Not enabled in the stream app";
          default -> "Unavailable";
        };
    return b.append("<p class=\"status\" role=\"status\"><strong>")
        .append(lead)
        .append(":</strong> ")
        .append(Html.text(reason == null ? "" : reason))
        .append("</p></section>")
        .toString();
  }

  private static String state(JsonNode s) {
    StringBuilder b = new StringBuilder("<dl class=\"facts\">");
    fact(
        b,
        "Held by",
        "<code>"
            + Html.text(s.path("host").asText())
            + "</code>, state partition "
            + s.path("partition").asInt());
    fact(b, "Current chain", "<code>" + Html.text(s.path("chain").asText()) + "</code>");
    fact(
        b,
        "Turns in this chain",
        Html.count(s.path("turns").asLong()) + " (next seq " + s.path("next_seq").asLong() + ")");
    fact(b, "Last activity (stream time)", SessionPages.time(s.path("last_seen_ms").asLong()));
    fact(
        b,
        "Bases kept",
        s.path("dormant").asBoolean()
            ? "none: idle past the TTL, the chain continues"
            : Html.count(s.path("bases").size())
                + " ("
                + Html.bytes(s.path("base_bytes").asLong())
                + ") until "
                + SessionPages.time(s.path("bases_expire_ms").asLong()));
    fact(b, "State kept until", SessionPages.time(s.path("state_expires_ms").asLong()));
    b.append("</dl>");
    if (s.path("bases").size() > 0) {
      b.append("<table class=\"data\" id=\"live-bases\"><caption>Bases kept, newest first")
          .append(" (metadata only: the bodies stay in the stream app)</caption>")
          .append("<thead><tr><th scope=\"col\">Turn</th><th scope=\"col\">SHA-256</th>")
          .append("<th scope=\"col\" class=\"num\">Depth</th>")
          .append("<th scope=\"col\" class=\"num\">Size</th></tr></thead><tbody>");
      for (JsonNode base : s.path("bases")) {
        b.append("<tr><th scope=\"row\">")
            .append(base.path("seq").asLong())
            .append("</th><td><code>")
            .append(Html.text(base.path("sha256").asText()))
            .append("</code></td><td class=\"num\">")
            .append(base.path("chain_depth").asInt())
            .append("</td><td class=\"num\">")
            .append(Html.bytes(base.path("length").asLong()))
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    return b.toString();
  }

  private static void fact(StringBuilder b, String name, String valueHtml) {
    b.append("<div><dt>").append(name).append("</dt><dd>").append(valueHtml).append("</dd></div>");
  }
}
