package io.prefixlog.tools.ui;

import io.prefixlog.schemas.kv.SourceStats;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/** The cache page: the engines' KV source statistics and the last {@code analyze} run. */
final class CachePage {
  /** How many of a source's sessions the blocks-per-session list shows. */
  static final int TOP_SESSIONS = 15;

  private CachePage() {}

  /**
   * @param stats the sources' latest statistics, or null when they could not be read
   * @param statsProblem why not, or {@code ""}
   * @param analysis the last analyze run's report, or null when none ran
   * @param charts whether that run wrote its charts
   * @param known whether an engine's session id is a captured session key (then it is linked to
   *     that session's page; an engine's own ids are shown as text)
   */
  static String render(
      List<SourceStats> stats,
      String statsProblem,
      String statsTopic,
      String analysis,
      boolean charts,
      boolean running,
      Predicate<String> known) {
    StringBuilder b = new StringBuilder("<h1>Cache</h1>");
    b.append("<section aria-labelledby=\"kv-h\"><h2 id=\"kv-h\">KV cache per engine</h2>")
        .append("<p>The latest statistics of each engine source, from <code>")
        .append(Html.text(statsTopic))
        .append("</code>: blocks the engine holds, stores and removals per minute of engine time,")
        .append(" gaps in its event sequence and restarts. The blocks themselves, by hash:")
        .append(" <a id=\"blocks-link\" href=\"/blocks\">KV block index</a>.</p>");
    if (stats == null) {
      b.append("<p class=\"bad\">").append(Html.text(statsProblem)).append("</p>");
    } else if (stats.isEmpty()) {
      b.append(
          "<p>No engine has reported KV events (the bridge subscribes with PREFIXLOG_KV_ENDPOINTS).</p>");
    } else {
      b.append(
              "<table id=\"kv-sources\" class=\"data\"><caption>Engine sources</caption><thead><tr>")
          .append("<th scope=\"col\">Source</th><th scope=\"col\">As of</th>")
          .append(
              "<th scope=\"col\" class=\"num\">Resident blocks</th><th scope=\"col\" class=\"num\">Resident tokens</th>")
          .append(
              "<th scope=\"col\" class=\"num\">Stores / min</th><th scope=\"col\" class=\"num\">Removals / min</th>")
          .append(
              "<th scope=\"col\" class=\"num\">Stores</th><th scope=\"col\" class=\"num\">Removals</th>")
          .append("<th scope=\"col\" class=\"num\">Block lifetime p50</th>")
          .append(
              "<th scope=\"col\" class=\"num\">Gaps</th><th scope=\"col\" class=\"num\">Restarts</th></tr></thead><tbody>");
      for (SourceStats s : stats) {
        b.append("<tr><th scope=\"row\"><code>")
            .append(Html.text(s.source()))
            .append("</code></th><td>")
            .append(SessionPages.time(s.ts() == null ? 0 : s.ts()))
            .append("</td>");
        num(b, s.residentBlocks());
        num(b, s.residentTokens());
        rate(b, s.storesPerMin());
        rate(b, s.removalsPerMin());
        num(b, s.storesTotal());
        num(b, s.removalsTotal());
        b.append("<td class=\"num\">")
            .append(
                s.lifetimeP50Ms() == null
                    ? "–"
                    : String.format(Locale.ROOT, "%,d ms", s.lifetimeP50Ms()))
            .append("</td>");
        num(b, s.gaps());
        num(b, s.restarts());
        b.append("</tr>");
      }
      b.append("</tbody></table>");
      for (SourceStats s : stats) {
        Map<String, Long> bySession = s.blocksStoredBySession();
        if (bySession == null || bySession.isEmpty()) {
          continue;
        }
        b.append("<h3>Blocks stored per session: <code>")
            .append(Html.text(s.source()))
            .append("</code></h3><ol class=\"blocks\">");
        bySession.entrySet().stream()
            .sorted(
                Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                    .thenComparing(Map.Entry.comparingByKey()))
            .limit(TOP_SESSIONS)
            .forEach(
                e -> {
                  b.append("<li>");
                  SessionPages.sessionLink(b, e.getKey(), known.test(e.getKey()));
                  b.append(": ").append(Html.count(e.getValue())).append(" blocks</li>");
                });
        b.append("</ol>");
      }
    }
    b.append("</section>");
    b.append(
            "<section aria-labelledby=\"an-h\"><h2 id=\"an-h\">Prefix-cache hit rates (analyze)</h2>")
        .append(
            "<p>What an LRU prefix cache of each capacity would have hit over the captured chunk lookups:")
        .append(" <code>bin/prefixlog analyze</code>, run here on the lookups topic.</p>")
        .append("<form method=\"post\" action=\"/cache/analyze\"><button type=\"submit\"")
        .append(running ? " disabled" : "")
        .append(">")
        .append(
            running
                ? "analyze is running…"
                : analysis == null ? "Run analyze" : "Run analyze again")
        .append("</button></form>");
    if (analysis != null) {
      if (charts) {
        b.append(
                "<figure><img src=\"/cache/curve.png\" alt=\"Hit rate against cache capacity\" width=\"1280\" height=\"760\">")
            .append("<figcaption>Hit rate against capacity</figcaption></figure>")
            .append(
                "<figure><img src=\"/cache/rolling.png\" alt=\"Rolling hit rate over time\" width=\"1280\" height=\"760\">")
            .append("<figcaption>Rolling hit rate over time</figcaption></figure>");
      }
      b.append("<details open><summary>analyze's report</summary><pre class=\"raw\">")
          .append(Html.text(analysis))
          .append("</pre></details>");
    }
    b.append("</section>");
    return Html.page("Cache", b.toString());
  }

  private static void num(StringBuilder b, Long v) {
    b.append("<td class=\"num\">").append(v == null ? "–" : Html.count(v)).append("</td>");
  }

  private static void rate(StringBuilder b, Double v) {
    b.append("<td class=\"num\">")
        .append(v == null ? "–" : String.format(Locale.ROOT, "%,.1f", v))
        .append("</td>");
  }
}
