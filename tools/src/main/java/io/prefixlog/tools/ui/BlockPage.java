package io.prefixlog.tools.ui;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The KV block index page ({@code /blocks}): each engine source's resident blocks from {@code
 * kv.block-index}, paged in hash order and searchable by the start of a block hash; and the blocks
 * a session left, for its own page.
 */
final class BlockPage {
  static final int PAGE_SIZE = 100;

  private BlockPage() {}

  /** The index's state for the status line. */
  record State(boolean caughtUp, ReadCounts.Snapshot counts, String problem) {
    String html(String topic) {
      return counts.html(
          (caughtUp ? "Block index up to date and following " : "Reading ")
              + "<code>"
              + Html.text(topic)
              + "</code>: ",
          problem);
    }
  }

  /**
   * @param sources resident blocks per source
   * @param known whether a session key is on the deltas topic (its id is then linked to its page)
   * @param source the source shown, or {@code ""} when there is none
   * @param query the hash prefix searched, or {@code ""}
   */
  static String render(
      Map<String, Integer> sources,
      String source,
      String query,
      int page,
      BlockIndex.Page blocks,
      State state,
      String topic,
      Predicate<String> known) {
    StringBuilder b = new StringBuilder("<h1>KV block index</h1>").append(state.html(topic));
    b.append(
        "<p>The blocks each engine holds now, as its KV-cache events say (a block leaves when its"
            + " last copy is removed). Sources and their statistics: <a href=\"/cache\">Cache</a>.</p>");
    if (sources.isEmpty()) {
      b.append(
          "<p>No engine block is resident (the bridge subscribes to engines with"
              + " PREFIXLOG_KV_ENDPOINTS; the stream app builds the index).</p>");
      return Html.page("KV block index", b.toString());
    }
    b.append("<nav aria-label=\"Sources\"><ul class=\"sources\">");
    sources.forEach(
        (s, n) -> {
          b.append("<li><a href=\"/blocks?source=")
              .append(Html.url(s))
              .append('"')
              .append(s.equals(source) ? " aria-current=\"page\"" : "")
              .append("><code>")
              .append(Html.text(s))
              .append("</code></a>: ")
              .append(Html.count(n))
              .append(n == 1 ? " block" : " blocks")
              .append("</li>");
        });
    b.append("</ul></nav>");
    b.append("<form class=\"filters\" method=\"get\" action=\"/blocks\" role=\"search\">")
        .append("<input type=\"hidden\" name=\"source\" value=\"")
        .append(Html.text(source))
        .append("\"><div class=\"field\"><label for=\"hash\">Block hash starts with</label>")
        .append("<input id=\"hash\" name=\"hash\" type=\"search\" value=\"")
        .append(Html.text(query))
        .append("\" spellcheck=\"false\"></div><div class=\"field\"><button type=\"submit\">")
        .append("Search</button> <a href=\"/blocks?source=")
        .append(Html.url(source))
        .append("\">Clear</a></div></form>");
    long first = (long) page * PAGE_SIZE;
    b.append("<p id=\"blocks-matched\">")
        .append(Html.count(blocks.matched()))
        .append(blocks.matched() == 1 ? " block" : " blocks")
        .append(query.isEmpty() ? "" : " match")
        .append(" in <code>")
        .append(Html.text(source))
        .append("</code>");
    if (!blocks.rows().isEmpty()) {
      b.append("; showing ")
          .append(Html.count(first + 1))
          .append(" to ")
          .append(Html.count(first + blocks.rows().size()))
          .append(", in hash order");
    }
    b.append(".</p>");
    table(b, "blocks", "Resident blocks of " + source, blocks.rows(), known);
    b.append("<nav class=\"pager\" aria-label=\"Pages\">");
    if (page > 0) {
      b.append("<a rel=\"prev\" href=\"")
          .append(url(source, query, page - 1))
          .append("\">Previous</a> ");
    }
    if (first + blocks.rows().size() < blocks.matched()) {
      b.append("<a rel=\"next\" href=\"")
          .append(url(source, query, page + 1))
          .append("\">Next</a>");
    }
    b.append("</nav>");
    return Html.page("KV block index", b.toString());
  }

  static String url(String source, String hash, int page) {
    StringBuilder u = new StringBuilder("/blocks?source=").append(Html.url(source));
    if (!hash.isEmpty()) {
      u.append("&amp;hash=").append(Html.url(hash));
    }
    if (page > 0) {
      u.append("&amp;page=").append(page);
    }
    return u.toString();
  }

  /** The session page's section: the resident blocks a request of this session stored last. */
  static String ofSession(List<BlockIndex.Block> blocks, boolean caughtUp) {
    StringBuilder b =
        new StringBuilder("<section aria-labelledby=\"blocks-h\"><h2 id=\"blocks-h\">")
            .append("KV blocks this session left</h2>");
    if (blocks.isEmpty()) {
      b.append("<p id=\"session-blocks-none\">")
          .append(
              caughtUp
                  ? "No resident block names this session: engines tag a block with the session"
                      + " id of the request that stored it only when the request carries one"
                      + " (vLLM's session_id), and that id must be this session key."
                  : "The block index is still being read.")
          .append("</p>");
    } else {
      long tokens = blocks.stream().mapToLong(x -> Math.max(x.tokens(), 0)).sum();
      b.append("<p>")
          .append(Html.count(blocks.size()))
          .append(" resident blocks (")
          .append(Html.count(tokens))
          .append(" tokens) were stored last by a request of this session.</p>");
      table(
          b,
          "session-blocks",
          "Resident blocks stored by this session",
          blocks.subList(0, Math.min(blocks.size(), PAGE_SIZE)),
          null);
      if (blocks.size() > PAGE_SIZE) {
        b.append("<p>The first ").append(PAGE_SIZE).append(" are shown.</p>");
      }
    }
    return b.append("</section>").toString();
  }

  /**
   * @param known for one source's table, whether a session id is a captured session (linked); null
   *     for a session's own table, which shows the source instead
   */
  private static void table(
      StringBuilder b,
      String id,
      String caption,
      List<BlockIndex.Block> rows,
      Predicate<String> known) {
    boolean bySource = known != null;
    b.append("<table id=\"")
        .append(id)
        .append("\" class=\"data\"><caption>")
        .append(Html.text(caption))
        .append("</caption><thead><tr>")
        .append(bySource ? "" : "<th scope=\"col\">Source</th>")
        .append("<th scope=\"col\">Block hash</th><th scope=\"col\">Parent</th>")
        .append(
            "<th scope=\"col\" class=\"num\">Tokens</th><th scope=\"col\" class=\"num\">Copies</th>")
        .append("<th scope=\"col\">Medium</th><th scope=\"col\">First stored</th>")
        .append("<th scope=\"col\">Last stored</th>")
        .append(bySource ? "<th scope=\"col\">Session</th>" : "")
        .append("<th scope=\"col\" class=\"num\">Batch</th></tr></thead><tbody>");
    for (BlockIndex.Block x : rows) {
      b.append("<tr>");
      if (!bySource) {
        b.append("<td><code>").append(Html.text(x.source())).append("</code></td>");
      }
      b.append("<th scope=\"row\"><code class=\"hash\">")
          .append(Html.text(x.hash()))
          .append("</code></th><td>");
      if (x.parent().isEmpty()) {
        b.append("none");
      } else {
        b.append("<a href=\"")
            .append(url(x.source(), x.parent(), 0))
            .append("\"><code class=\"hash\">")
            .append(Html.text(x.parent()))
            .append("</code></a>");
      }
      b.append("</td><td class=\"num\">")
          .append(x.tokens() < 0 ? "–" : Html.count(x.tokens()))
          .append("</td><td class=\"num\">")
          .append(Html.count(x.copies()))
          .append("</td><td>")
          .append(Html.text(x.medium()))
          .append("</td><td>")
          .append(SessionPages.time(x.firstStoredMs()))
          .append("</td><td>")
          .append(SessionPages.time(x.lastStoredMs()))
          .append("</td>");
      if (bySource) {
        b.append("<td>");
        if (x.session().isEmpty()) {
          b.append("–");
        } else {
          SessionPages.sessionLink(b, x.session(), known.test(x.session()));
        }
        b.append("</td>");
      }
      b.append("<td class=\"num\">")
          .append(x.batch() < 0 ? "–" : String.format(Locale.ROOT, "%d", x.batch()))
          .append("</td></tr>");
    }
    if (rows.isEmpty()) {
      b.append("<tr><td colspan=\"10\">No block matches.</td></tr>");
    }
    b.append("</tbody></table>");
  }
}
