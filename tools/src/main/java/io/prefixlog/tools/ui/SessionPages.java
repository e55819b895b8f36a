package io.prefixlog.tools.ui;

import io.prefixlog.tools.ui.SessionIndex.Page;
import io.prefixlog.tools.ui.SessionIndex.Query;
import io.prefixlog.tools.ui.SessionIndex.Sort;
import io.prefixlog.tools.ui.SessionIndex.Summary;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The sessions list and one session's timeline, rendered from the index alone (no record read). */
final class SessionPages {
  private SessionPages() {}

  /** The index's state for the status line: whether the first read is done, and any problem. */
  record IndexState(boolean caughtUp, ReadCounts.Snapshot counts, String problem) {
    String html() {
      return counts.html(
          caughtUp ? "Index up to date and following: " : "Reading the topic: ", problem);
    }

    /**
     * The status line without the counts or the follower's problem, which are about every tenant's
     * records: what a tenant's token is shown.
     */
    String tenantHtml() {
      return "<p class=\"status\" role=\"status\">"
          + (caughtUp ? "Index up to date and following." : "Reading the topic.")
          + "</p>";
    }
  }

  static String list(
      Query q,
      Page page,
      List<String> models,
      List<String> paths,
      String stateHtml,
      String fromText,
      String toText) {
    StringBuilder b = new StringBuilder();
    b.append("<h1>Sessions</h1>").append(stateHtml);
    b.append("<form class=\"filters\" method=\"get\" action=\"/\" role=\"search\">");
    field(b, "q", "Session key starts with", q.keyPrefix(), "search", null);
    field(b, "model", "Model", q.model(), "text", "models");
    field(b, "path", "Path", q.path(), "text", "paths");
    field(b, "from", "Active from (UTC)", fromText, "datetime-local", null);
    field(b, "to", "Active until (UTC)", toText, "datetime-local", null);
    b.append(
        "<div class=\"field\"><label for=\"sort\">Sort by</label><select id=\"sort\" name=\"sort\">");
    for (Sort s : Sort.values()) {
      b.append("<option value=\"").append(s.param()).append('"');
      if (s == q.sort()) {
        b.append(" selected");
      }
      b.append('>').append(s.label).append("</option>");
    }
    b.append("</select></div><div class=\"field\"><label for=\"order\">Order</label>")
        .append("<select id=\"order\" name=\"order\"><option value=\"desc\"")
        .append(q.ascending() ? "" : " selected")
        .append(">largest / newest first</option><option value=\"asc\"")
        .append(q.ascending() ? " selected" : "")
        .append(">smallest / oldest first</option></select></div>")
        .append("<div class=\"field\"><button type=\"submit\">Search</button>")
        .append(" <a href=\"/\">Clear</a></div></form>");
    datalist(b, "models", models);
    datalist(b, "paths", paths);
    long first = (long) q.page() * q.size();
    b.append("<p id=\"matched\">")
        .append(Html.count(page.matched()))
        .append(" of ")
        .append(Html.count(page.sessions()))
        .append(" sessions match");
    if (!page.rows().isEmpty()) {
      b.append("; showing ")
          .append(Html.count(first + 1))
          .append(" to ")
          .append(Html.count(first + page.rows().size()));
    }
    b.append(".</p>");
    b.append("<table id=\"sessions\" class=\"data\"><caption>Sessions, ")
        .append(q.ascending() ? "smallest" : "largest")
        .append(" ")
        .append(q.sort().label)
        .append(" first</caption><thead><tr>")
        .append("<th scope=\"col\">Session key</th><th scope=\"col\">Model</th>")
        .append("<th scope=\"col\">Path</th><th scope=\"col\">First activity</th>");
    sortHeader(b, q, Sort.LAST, "Last activity");
    sortHeader(b, q, Sort.TURNS, "Turns");
    sortHeader(b, q, Sort.BYTES, "Bytes");
    b.append("<th scope=\"col\" class=\"num\">Prompt tokens</th>")
        .append("<th scope=\"col\" class=\"num\">Cached tokens</th>");
    sortHeader(b, q, Sort.CACHED, "Cached share");
    b.append("</tr></thead><tbody>");
    for (Summary s : page.rows()) {
      b.append("<tr><th scope=\"row\"><a class=\"session\" href=\"/session?key=")
          .append(Html.url(s.key()))
          .append("\"><code>")
          .append(Html.text(s.key()))
          .append("</code></a></th><td>")
          .append(Html.text(s.model()))
          .append("</td><td>")
          .append(Html.text(s.path()))
          .append("</td><td>")
          .append(time(s.first()))
          .append("</td><td>")
          .append(time(s.last()))
          .append("</td><td class=\"num\">")
          .append(Html.count(s.turns()))
          .append("</td><td class=\"num\">")
          .append(Html.bytes(s.bytes()))
          .append("</td><td class=\"num\">")
          .append(Html.count(s.promptTokens()))
          .append("</td><td class=\"num\">")
          .append(Html.count(s.cachedTokens()))
          .append("</td><td class=\"num\">")
          .append(Html.percent(s.cachedShare()))
          .append("</td></tr>");
    }
    if (page.rows().isEmpty()) {
      b.append("<tr><td colspan=\"10\">No session matches.</td></tr>");
    }
    b.append("</tbody></table>");
    b.append("<nav class=\"pager\" aria-label=\"Pages\">");
    if (q.page() > 0) {
      b.append("<a rel=\"prev\" href=\"")
          .append(listUrl(q, q.page() - 1, q.sort(), q.ascending()))
          .append("\">Previous</a> ");
    }
    if (first + page.rows().size() < page.matched()) {
      b.append("<a rel=\"next\" href=\"")
          .append(listUrl(q, q.page() + 1, q.sort(), q.ascending()))
          .append("\">Next</a>");
    }
    b.append("</nav>");
    return Html.page("Sessions", b.toString());
  }

  private static void sortHeader(StringBuilder b, Query q, Sort sort, String label) {
    boolean current = q.sort() == sort;
    b.append("<th scope=\"col\" class=\"num\"");
    if (current) {
      b.append(" aria-sort=\"").append(q.ascending() ? "ascending" : "descending").append('"');
    }
    b.append("><a href=\"")
        .append(listUrl(q, 0, sort, current && !q.ascending()))
        .append("\">")
        .append(label)
        .append(current ? (q.ascending() ? " ▲" : " ▼") : "")
        .append("</a></th>");
  }

  /** A list URL with the query's filters, another page or order. */
  static String listUrl(Query q, int page, Sort sort, boolean ascending) {
    StringBuilder u = new StringBuilder("/?sort=").append(sort.param());
    if (ascending) {
      u.append("&amp;order=asc");
    }
    param(u, "q", q.keyPrefix());
    param(u, "model", q.model());
    param(u, "path", q.path());
    if (q.from() != Long.MIN_VALUE) {
      param(u, "from", localTime(q.from()));
    }
    if (q.to() != Long.MAX_VALUE) {
      param(u, "to", localTime(q.to()));
    }
    if (page > 0) {
      u.append("&amp;page=").append(page);
    }
    return u.toString();
  }

  static String localTime(long epochMs) {
    return java.time.LocalDateTime.ofInstant(
            java.time.Instant.ofEpochMilli(epochMs), java.time.ZoneOffset.UTC)
        .truncatedTo(java.time.temporal.ChronoUnit.MINUTES)
        .toString();
  }

  private static void param(StringBuilder u, String name, String value) {
    if (!value.isEmpty()) {
      u.append("&amp;").append(name).append('=').append(Html.url(value));
    }
  }

  private static void field(
      StringBuilder b, String name, String label, String value, String type, String list) {
    b.append("<div class=\"field\"><label for=\"")
        .append(name)
        .append("\">")
        .append(label)
        .append("</label><input id=\"")
        .append(name)
        .append("\" name=\"")
        .append(name)
        .append("\" type=\"")
        .append(type)
        .append("\" value=\"")
        .append(Html.text(value))
        .append('"');
    if (list != null) {
      b.append(" list=\"").append(list).append('"');
    }
    b.append("></div>");
  }

  private static void datalist(StringBuilder b, String id, List<String> values) {
    b.append("<datalist id=\"").append(id).append("\">");
    for (String v : values) {
      b.append("<option value=\"").append(Html.text(v)).append("\"></option>");
    }
    b.append("</datalist>");
  }

  static String time(long ms) {
    return ms <= 0 ? "" : "<time datetime=\"" + Html.iso(ms) + "\">" + Html.time(ms) + "</time>";
  }

  /**
   * The chunk-prefix figures of a session's turns ({@link ChunkPrefix}), keyed {@code chain/seq},
   * how many turns' lookups could not be resolved, and whether the lookups index is complete enough
   * to say that a turn has none.
   */
  record Lookups(
      Map<String, ChunkPrefix.Hit> hits, long unresolved, boolean caughtUp, String problem) {
    static Lookups none() {
      return new Lookups(Map.of(), 0, true, "");
    }
  }

  /** One session: its summary and the timeline of its turns. */
  static String session(Summary s, List<TurnInfo> turns, IndexState state) {
    return session(s, turns, state, Lookups.none(), "");
  }

  /**
   * One session: its summary, the tree of its turns beside their timeline, and what else the page
   * shows below ({@code moreHtml}: the blocks it left).
   */
  static String session(
      Summary s, List<TurnInfo> turns, IndexState state, Lookups lookups, String moreHtml) {
    return session(s, turns, state.html(), lookups, "", moreHtml);
  }

  /**
   * One session, with {@code statusHtml} under the title (where the data comes from: the topic or
   * the archive), {@code panelsHtml} after the facts (the live state in the stream app) and {@code
   * moreHtml} below (the blocks it left).
   */
  static String session(
      Summary s,
      List<TurnInfo> turns,
      String statusHtml,
      Lookups lookups,
      String panelsHtml,
      String moreHtml) {
    StringBuilder b = new StringBuilder();
    b.append("<h1>Session <code>")
        .append(Html.text(s.key()))
        .append("</code></h1>")
        .append(statusHtml);
    TurnInfo newest = turns.get(turns.size() - 1);
    long prefix = 0;
    long size = 0;
    for (TurnInfo t : turns) {
      prefix += Math.max(t.prefixLen(), 0);
      size += t.bodyLen();
    }
    b.append("<dl class=\"facts\">");
    fact(b, "Model", Html.text(s.model()));
    fact(b, "Path", Html.text(s.path()));
    fact(b, "Client address (as stored)", Html.text(newest.clientAddr()));
    fact(b, "Active", time(s.first()) + " to " + time(s.last()));
    fact(
        b,
        "Turns",
        Html.count(s.turns())
            + " in "
            + Html.count(s.chains())
            + (s.chains() == 1 ? " chain" : " chains")
            + ", "
            + Html.count(s.branches())
            + (s.branches() == 1 ? " branch" : " branches")
            + " (a base that is not the turn before)");
    fact(
        b,
        "Bodies",
        Html.bytes(s.bytes()) + " rebuilt, " + Html.bytes(s.storedBytes()) + " stored");
    fact(
        b,
        "Engine cache",
        Html.count(s.cachedTokens())
            + " of "
            + Html.count(s.promptTokens())
            + " prompt tokens cached ("
            + Html.percent(s.cachedShare())
            + ")");
    fact(
        b,
        "Prefix the history allowed",
        Html.count(prefix)
            + " of "
            + Html.count(size)
            + " body characters shared with each turn's base ("
            + Html.percent(size == 0 ? -1 : (double) prefix / size)
            + ", counting code points against bytes)");
    long chunks = 0;
    long seenChunks = 0;
    for (ChunkPrefix.Hit h : lookups.hits().values()) {
      chunks += h.chunks();
      seenChunks += h.seen();
    }
    String unresolved =
        lookups.unresolved() == 0
            ? ""
            : Html.count(lookups.unresolved())
                + " turns' lookups list only the chunks after their previous turn's, whose lookup"
                + " is no longer on the topic: no figure until their chain's next whole lookup";
    fact(
        b,
        "Chunk prefix the history allowed",
        lookups.hits().isEmpty()
            ? (!lookups.problem().isEmpty()
                ? Html.text(lookups.problem())
                : !unresolved.isEmpty()
                    ? unresolved
                    : "no chunk lookups for this session"
                        + (lookups.caughtUp()
                            ? ""
                            : " yet (the lookups topic is still being read)"))
            : Html.count(seenChunks)
                + " of "
                + Html.count(chunks)
                + " leading chunks already sent by an earlier turn ("
                + Html.percent(chunks == 0 ? -1 : (double) seenChunks / chunks)
                + "), over "
                + Html.count(lookups.hits().size())
                + " turns with a lookup"
                + (unresolved.isEmpty() ? "" : "; " + unresolved));
    b.append("</dl>").append(panelsHtml);
    b.append("<div class=\"timeline-and-tree\">").append(TurnTree.html(s.key(), turns));
    b.append(
            "<table id=\"timeline\" class=\"data\"><caption>Timeline: every turn, oldest first</caption>")
        .append("<thead><tr><th scope=\"col\">Turn</th><th scope=\"col\">Time</th>")
        .append(
            "<th scope=\"col\" class=\"num\">Size</th><th scope=\"col\" class=\"num\">Stored</th>")
        .append("<th scope=\"col\">Record</th><th scope=\"col\">Base</th>")
        .append(
            "<th scope=\"col\" class=\"num\">Status</th><th scope=\"col\" class=\"num\">Latency</th>")
        .append("<th scope=\"col\">Prompt vs cached tokens</th>")
        .append(
            "<th scope=\"col\" class=\"num\" title=\"Leading chunks of the prompt an earlier turn"
                + " of this session already sent (chunk.lookups)\">Chunk prefix seen</th>")
        .append("<th scope=\"col\" class=\"num\">History prefix</th></tr></thead><tbody>");
    String lastChain = null;
    for (TurnInfo t : turns) {
      boolean newChain = lastChain != null && !lastChain.equals(t.chain());
      lastChain = t.chain();
      b.append("<tr")
          .append(t.branches() ? " class=\"branch\"" : newChain ? " class=\"new-chain\"" : "")
          .append("><th scope=\"row\"><a class=\"turn\" href=\"")
          .append(turnUrl(s.key(), t.chain(), t.seq()))
          .append("\">")
          .append(
              t.chain().isEmpty()
                  ? ""
                  : "<span class=\"chain\">" + Html.text(t.chain()) + "/</span>")
          .append(t.seq())
          .append("</a></th><td>")
          .append(time(t.ts()))
          .append("</td><td class=\"num\">")
          .append(Html.bytes(t.bodyLen()))
          .append("</td><td class=\"num\">")
          .append(Html.bytes(t.recordBytes()))
          .append("</td><td>");
      if (t.keyframe()) {
        b.append("<span class=\"tag keyframe\">keyframe</span> ")
            .append(Html.text(t.keyframeReason().replace('_', ' ')));
      } else {
        b.append("<span class=\"tag delta\">delta</span> depth ").append(t.chainDepth());
      }
      b.append("</td><td>");
      if (!t.keyframe()) {
        if (t.branches()) {
          b.append("<span class=\"tag branch\">branch</span> from ");
        }
        b.append("<a href=\"")
            .append(turnUrl(s.key(), t.chain(), t.baseSeq()))
            .append("\">turn ")
            .append(t.baseSeq())
            .append("</a>");
      } else {
        b.append("none");
      }
      b.append("</td><td class=\"num")
          .append(t.status() >= 400 ? " bad" : "")
          .append("\">")
          .append(t.status() == 0 ? "–" : Integer.toString(t.status()))
          .append("</td><td class=\"num\">")
          .append(t.latencyMs() < 0 ? "–" : String.format(Locale.ROOT, "%,.0f ms", t.latencyMs()))
          .append("</td><td>");
      if (t.promptTokens() > 0) {
        long cached = Math.max(t.cachedTokens(), 0);
        b.append("<meter min=\"0\" max=\"")
            .append(t.promptTokens())
            .append("\" value=\"")
            .append(cached)
            .append("\" aria-label=\"cached tokens of turn ")
            .append(t.seq())
            .append("\"></meter> ")
            .append(Html.count(cached))
            .append(" / ")
            .append(Html.count(t.promptTokens()));
      } else {
        b.append("not reported");
      }
      b.append("</td>");
      chunkCell(b, lookups.hits().get(t.chain() + "/" + t.seq()));
      b.append("<td class=\"num\">")
          .append(t.prefixLen() < 0 ? "–" : Html.count(t.prefixLen()))
          .append("</td></tr>");
    }
    b.append("</tbody></table></div>").append(moreHtml);
    return Html.page("Session " + s.key(), b.toString());
  }

  /** A turn's chunk-prefix figure: leading chunks seen of its chunks, and their size. */
  private static void chunkCell(StringBuilder b, ChunkPrefix.Hit h) {
    if (h == null) {
      b.append("<td class=\"num chunk-prefix\">–</td>");
      return;
    }
    b.append("<td class=\"num chunk-prefix\" data-seen=\"")
        .append(h.seen())
        .append("\" data-chunks=\"")
        .append(h.chunks())
        .append("\">")
        .append(Html.count(h.seen()))
        .append(" / ")
        .append(Html.count(h.chunks()))
        .append(" chunks<br><span class=\"units\">")
        .append(Html.count(h.seenUnits()))
        .append(' ')
        .append(Html.text(h.unit()))
        .append("</span></td>");
  }

  /**
   * A session key in code, linked to the session's page when the index {@code known} it; else (an
   * engine's own id, not a session prefixlog captured) shown, not linked.
   */
  static void sessionLink(StringBuilder b, String key, boolean known) {
    if (known) {
      b.append("<a href=\"/session?key=")
          .append(Html.url(key))
          .append("\"><code>")
          .append(Html.text(key))
          .append("</code></a>");
    } else {
      b.append("<code>").append(Html.text(key)).append("</code>");
    }
  }

  static String turnUrl(String key, String chain, long seq) {
    return "/turn?key=" + Html.url(key) + "&amp;chain=" + Html.url(chain) + "&amp;seq=" + seq;
  }

  private static void fact(StringBuilder b, String name, String valueHtml) {
    b.append("<div><dt>").append(name).append("</dt><dd>").append(valueHtml).append("</dd></div>");
  }
}
