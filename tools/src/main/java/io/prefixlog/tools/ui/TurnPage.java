package io.prefixlog.tools.ui;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.core.text.Utf8;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.util.Locale;

/** One turn: verification, the diff from its ops, the chat messages, the raw JSON, commands. */
final class TurnPage {
  private TurnPage() {}

  /** Where the data came from, for the commands that rebuild the turn elsewhere. */
  /**
   * Where the turn was read from, for the commands that rebuild it.
   *
   * @param archiveArgs the {@code reconstruct} options that read the archive the turn came from, or
   *     null when it came from the topic
   */
  record Source(String bootstrap, String topicPrefix, String archiveArgs) {
    Source(String bootstrap, String topicPrefix) {
      this(bootstrap, topicPrefix, null);
    }
  }

  static String render(String sessionKey, TurnInfo info, TurnRebuild.Result result, Source source) {
    DeltaRecord r = result.record();
    String chain = info.chain();
    long seq = info.seq();
    StringBuilder b = new StringBuilder();
    b.append("<p class=\"crumbs\"><a href=\"/session?key=")
        .append(Html.url(sessionKey))
        .append("\">Session <code>")
        .append(Html.text(sessionKey))
        .append("</code></a></p>");
    b.append("<h1>Turn ").append(seq);
    if (!chain.isEmpty()) {
      b.append(" <small>chain <code>").append(Html.text(chain)).append("</code></small>");
    }
    b.append("</h1>");
    if (source.archiveArgs() != null) {
      b.append("<p class=\"status\" id=\"from-archive\"><strong>From the archive:</strong>")
          .append(" rebuilt from the archived delta table, beyond the topic.</p>");
    }

    b.append(
        "<section aria-labelledby=\"verify-h\"><h2 id=\"verify-h\">Body</h2><dl class=\"facts\">");
    fact(
        b,
        "Check",
        result.verified()
            ? "<span id=\"verdict\" class=\"badge ok\">SHA-256 matches</span>"
            : "<span id=\"verdict\" class=\"badge bad\">MISMATCH</span> "
                + Html.text(result.problem()));
    fact(
        b,
        "SHA-256 of the rebuilt bytes (computed by this server)",
        result.sha256() == null
            ? "none: not rebuilt"
            : "<code id=\"sha\">" + result.sha256() + "</code>");
    fact(
        b,
        "body_sha256 of the record",
        "<code id=\"record-sha\">" + Html.text(r.bodySha256()) + "</code>");
    fact(
        b,
        "Size",
        (result.body() == null ? "?" : Html.count(result.body().length))
            + " bytes rebuilt; body_len "
            + Html.count(r.bodyLen() == null ? -1 : r.bodyLen())
            + "; record "
            + Html.bytes(info.recordBytes())
            + " stored");
    fact(
        b,
        "Record",
        r.isKeyframe()
            ? "keyframe (" + Html.text(String.valueOf(r.keyframeReason()).replace('_', ' ')) + ")"
            : "delta against turn " + r.baseSeq() + ", depth " + r.chainDepth());
    fact(b, "Time", SessionPages.time(info.ts()));
    fact(
        b,
        "Model and path",
        Html.text(r.model()) + " " + Html.text(r.method()) + " " + Html.text(r.path()));
    fact(b, "Client address (as stored)", Html.text(r.clientAddr()));
    fact(
        b,
        "Engine",
        "status "
            + (info.status() == 0 ? "–" : info.status())
            + (info.latencyMs() < 0
                ? ""
                : String.format(Locale.ROOT, ", %,.0f ms", info.latencyMs()))
            + (info.promptTokens() < 0
                ? ", tokens not reported"
                : ", "
                    + Html.count(Math.max(info.cachedTokens(), 0))
                    + " of "
                    + Html.count(info.promptTokens())
                    + " prompt tokens cached")
            + (info.prefixLen() < 0
                ? ""
                : "; " + Html.count(info.prefixLen()) + " characters shared with the base"));
    b.append("</dl>");
    if (result.body() != null) {
      b.append("<p><a id=\"download\" class=\"button\" download href=\"/turn/body?key=")
          .append(Html.url(sessionKey))
          .append("&amp;chain=")
          .append(Html.url(chain))
          .append("&amp;seq=")
          .append(seq)
          .append("\">Download the exact bytes</a></p>");
    }
    b.append("</section>");

    b.append("<section aria-labelledby=\"diff-h\"><h2 id=\"diff-h\">What this turn added</h2>");
    if (r.isKeyframe()) {
      b.append("<p>A keyframe holds the whole body; it has no base to differ from.</p>");
    } else if (result.base() == null) {
      b.append("<p>The base turn ")
          .append(r.baseSeq())
          .append(" could not be rebuilt: ")
          .append(Html.text(result.problem()))
          .append("</p>");
    } else {
      DiffHtml.Stats st = DiffHtml.stats(r.ops());
      b.append("<p>Rendered from the delta's ")
          .append(r.ops().size())
          .append(" ops against <a href=\"")
          .append(SessionPages.turnUrl(sessionKey, chain, r.baseSeq()))
          .append("\">turn ")
          .append(r.baseSeq())
          .append("</a>: ")
          .append(Html.count(st.inserts()))
          .append(st.inserts() == 1 ? " insert (" : " inserts (")
          .append(Html.count(st.insertedCodePoints()))
          .append(" characters, <ins>highlighted</ins>), ")
          .append(Html.count(st.copies()))
          .append(st.copies() == 1 ? " copy (" : " copies (")
          .append(Html.count(st.copiedCodePoints()))
          .append(" characters, plain; long ones collapsed).</p>");
      b.append(DiffHtml.render(result.base(), r.ops(), r.baseSeq()));
    }
    b.append("</section>");

    commands(b, sessionKey, chain, seq, source);
    if (result.body() != null) {
      body(b, result.body());
    }
    return Html.page("Turn " + seq + " of " + sessionKey, b.toString());
  }

  /**
   * The end of a reconstruct command line, whichever source it reads: the options that pick this
   * turn and write its body to {@code turn.body}, which the page's digest check then reads.
   */
  private static String printTurn(String key, String chain, long seq) {
    return " --session "
        + shell(key)
        + (chain.isEmpty() ? "" : " --chain " + shell(chain))
        + " --seq "
        + seq
        + " --print > turn.body";
  }

  private static void commands(StringBuilder b, String key, String chain, long seq, Source source) {
    if (source.archiveArgs() != null) {
      String fromArchive =
          "bin/prefixlog reconstruct " + source.archiveArgs() + printTurn(key, chain, seq);
      b.append("<section aria-labelledby=\"cmd-h\"><h2 id=\"cmd-h\">Rebuild it yourself</h2>");
      command(
          b,
          "cmd-reconstruct",
          "With prefixlog, from the archive (checks body_len and body_sha256; S3 credentials from"
              + " PREFIXLOG_S3_ACCESS_KEY and PREFIXLOG_S3_SECRET_KEY):",
          fromArchive);
      b.append("<p>Then <code>sha256sum turn.body</code> prints the digest above.</p></section>");
      return;
    }
    String reconstruct =
        "bin/prefixlog reconstruct --bootstrap "
            + shell(source.bootstrap())
            + " --topic-prefix "
            + shell(source.topicPrefix())
            + printTurn(key, chain, seq);
    String dump =
        "kcat -C -e -b "
            + shell(source.bootstrap())
            + " -t "
            + shell(source.topicPrefix() + "session.deltas")
            + " -f '%s\\n' > deltas.jsonl";
    String jq =
        "jq -n -j --arg session "
            + shell(key)
            + " --arg chain "
            + shell(chain)
            + " --argjson seq "
            + seq
            + " -f rebuild.jq deltas.jsonl > turn.body";
    b.append("<section aria-labelledby=\"cmd-h\"><h2 id=\"cmd-h\">Rebuild it yourself</h2>");
    command(b, "cmd-reconstruct", "With prefixlog (checks body_len and body_sha256):", reconstruct);
    command(b, "cmd-dump", "Without it: dump the topic,", dump);
    command(
        b,
        "cmd-jq",
        "then rebuild with jq 1.6 and <code>rebuild.jq</code> from docs/rebuild-with-jq.md:",
        jq);
    b.append("<p>Then <code>sha256sum turn.body</code> prints the digest above.</p></section>");
  }

  private static void command(StringBuilder b, String id, String what, String command) {
    b.append("<div class=\"command\"><p id=\"")
        .append(id)
        .append("-label\">")
        .append(what)
        .append("</p><pre><code id=\"")
        .append(id)
        .append("\">")
        .append(Html.text(command))
        .append("</code></pre><button type=\"button\" class=\"copy-button\" data-copy=\"")
        .append(id)
        .append("\" aria-describedby=\"")
        .append(id)
        .append("-label\">Copy</button></div>");
  }

  /** Single-quotes a shell word unless it is plainly safe. */
  static String shell(String word) {
    if (!word.isEmpty() && word.matches("[A-Za-z0-9._:,/=@+-]+")) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }

  private static void body(StringBuilder b, byte[] body) {
    b.append("<section aria-labelledby=\"msgs-h\"><h2 id=\"msgs-h\">Messages</h2>");
    JsonNode json = null;
    if (Utf8.isStrict(body)) {
      try {
        json = Json.mapper().readTree(body);
      } catch (IOException e) {
        json = null;
      }
    }
    if (json == null || !json.isObject()) {
      b.append("<p>The body is not a JSON object; its text is shown below.</p></section>");
      b.append(
              "<section aria-labelledby=\"raw-h\"><h2 id=\"raw-h\">Raw body</h2><pre class=\"raw\">")
          .append(Html.text(new String(body, java.nio.charset.StandardCharsets.UTF_8)))
          .append("</pre></section>");
      return;
    }
    JsonNode messages = json.get("messages");
    if (messages != null && messages.isArray()) {
      b.append("<ol class=\"messages\">");
      for (JsonNode m : messages) {
        String role = m.path("role").asText("?");
        b.append("<li class=\"message role-")
            .append(Html.text(role.replaceAll("[^a-z]", "")))
            .append("\"><p class=\"role\">")
            .append(Html.text(role))
            .append(m.has("name") ? " (" + Html.text(m.get("name").asText()) + ")" : "")
            .append("</p><div class=\"content\">")
            .append(Html.text(content(m.get("content"))))
            .append("</div>");
        if (m.has("tool_calls")) {
          b.append("<pre class=\"tool-calls\">")
              .append(Html.text(pretty(m.get("tool_calls"))))
              .append("</pre>");
        }
        b.append("</li>");
      }
      b.append("</ol>");
    } else if (json.has("prompt")) {
      b.append("<div class=\"content\">")
          .append(Html.text(content(json.get("prompt"))))
          .append("</div>");
    } else {
      b.append("<p>No <code>messages</code> nor <code>prompt</code> in this body.</p>");
    }
    b.append("</section>");
    b.append("<section aria-labelledby=\"raw-h\"><h2 id=\"raw-h\">Raw JSON</h2>")
        .append(
            "<details><summary>Show the body, pretty-printed (the download has the exact bytes)</summary>")
        .append("<pre class=\"raw\" id=\"raw-json\">")
        .append(Html.text(pretty(json)))
        .append("</pre></details></section>");
  }

  /** A message's content: a string, or the text parts of a list of parts. */
  private static String content(JsonNode content) {
    if (content == null || content.isNull()) {
      return "";
    }
    if (content.isTextual()) {
      return content.asText();
    }
    if (content.isArray()) {
      StringBuilder s = new StringBuilder();
      for (JsonNode part : content) {
        if (s.length() > 0) {
          s.append('\n');
        }
        s.append(part.has("text") ? part.get("text").asText() : pretty(part));
      }
      return s.toString();
    }
    return pretty(content);
  }

  private static String pretty(JsonNode node) {
    try {
      return Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(node);
    } catch (IOException e) {
      return node.toString();
    }
  }

  private static void fact(StringBuilder b, String name, String valueHtml) {
    b.append("<div><dt>").append(name).append("</dt><dd>").append(valueHtml).append("</dd></div>");
  }
}
