package io.prefixlog.tools.analyze;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.analysis.mrc.EngineTokenTotals;
import io.prefixlog.analysis.mrc.LookupRequest;
import io.prefixlog.cli.Units;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.tools.topic.CompactedView;
import io.prefixlog.tools.topic.TopicScan;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the captured engines themselves did, printed beside the routing what-if: the engine's own
 * usage counts (prompt and cached tokens) carried by the lookup records, and each KV source's
 * latest statistics from {@code kv.source-stats} (or a dump of it).
 *
 * <p>Requests are attributed by the {@code upstream} their records carry: where the capture proxy
 * forwarded them, the engine itself when each engine has its own proxy, a router otherwise. A KV
 * source is joined to an upstream by host only (its endpoint is the engine's ZMQ address, the
 * upstream its HTTP address), and not at all when several upstreams share the host. Records without
 * an upstream (LMCache's files, events posted to the ingest endpoint, captures from before the
 * field) leave the request figures for the whole fleet.
 */
final class EngineFigures {
  private static final String NOT_ATTRIBUTED =
      """
          not per source: requests, prompt and cached tokens. The requests do not name the engine
            that served them (no upstream in the records), so the "engine actual" line is the
            whole fleet's.
      """;

  private static final String JOINED_BY_HOST =
      """
          per source: the upstream table names the engine each request was forwarded to; a KV
            source belongs to an upstream when their hosts are equal (shared hosts are not joined).
      """;

  private EngineFigures() {}

  /**
   * The requests by the upstream the capture proxy forwarded them to, with the engine's usage and
   * the KV sources on the same host; nothing when no record names an upstream.
   *
   * @return whether any request named its upstream
   */
  private static boolean byUpstream(StringBuilder s, List<Lookup> lookups, Sources sources) {
    Map<String, List<Lookup>> groups = new TreeMap<>();
    for (Lookup lookup : lookups) {
      groups.computeIfAbsent(lookup.upstream(), u -> new ArrayList<>()).add(lookup);
    }
    if (groups.size() == 1 && groups.containsKey("")) {
      return false;
    }
    Map<String, Integer> upstreamsOnHost = new TreeMap<>();
    for (String upstream : groups.keySet()) {
      upstreamsOnHost.merge(host(upstream), 1, Integer::sum);
    }
    s.append(
        "  requests by upstream (where the capture proxy forwarded them; with one proxy per engine,"
            + " the engine):\n");
    int width = "upstream".length();
    for (String upstream : groups.keySet()) {
      width = Math.max(width, label(upstream).length());
    }
    String format = "    %-" + width + "s %9s %7s %10s %14s %14s %8s %11s";
    row(
        s,
        String.format(
            Locale.ROOT,
            format,
            "upstream",
            "requests",
            "share",
            "with usage",
            "prompt tokens",
            "cached tokens",
            "hit rate",
            sources.unavailable() == null ? "KV sources" : ""));
    long max = 0;
    for (Map.Entry<String, List<Lookup>> group : groups.entrySet()) {
      EngineTokenTotals usage = usage(group.getValue());
      long requests = group.getValue().size();
      max = Math.max(max, requests);
      String host = host(group.getKey());
      String joined = "";
      if (sources.unavailable() == null) {
        if (host.isEmpty()) {
          joined = "-";
        } else if (upstreamsOnHost.get(host) > 1) {
          joined = "host shared";
        } else {
          joined =
              Long.toString(
                  sources.stats().stream().filter(st -> host.equals(host(st.source()))).count());
        }
      }
      row(
          s,
          String.format(
              Locale.ROOT,
              format,
              label(group.getKey()),
              Units.count(requests),
              Quantities.percent((double) requests / lookups.size()),
              Units.count(usage.requests()),
              Units.count(usage.promptTokens()),
              Units.count(usage.cachedTokens()),
              Quantities.percent(usage.hitRate()),
              joined));
    }
    EngineTokenTotals all = usage(lookups);
    row(
        s,
        String.format(
            Locale.ROOT,
            format,
            "all",
            Units.count(lookups.size()),
            "100.0%",
            Units.count(all.requests()),
            Units.count(all.promptTokens()),
            Units.count(all.cachedTokens()),
            Quantities.percent(all.hitRate()),
            ""));
    if (groups.size() > 1) {
      s.append(
          String.format(
              Locale.ROOT,
              "    requests max/mean over upstreams: %.2f (the real routing's balance)%n",
              max * (double) groups.size() / lookups.size()));
    } else {
      s.append(
          "    one upstream: a router behind it would hide which engine served a request; one"
              + " capture proxy per engine names each\n");
    }
    return true;
  }

  private static String label(String upstream) {
    return upstream.isEmpty() ? "(none)" : upstream;
  }

  /**
   * The host of an upstream ({@code http://host:port}) or a KV source ({@code
   * tcp://host:port|dp0|topic}), lower case; {@code ""} when there is none.
   */
  static String host(String address) {
    int bar = address.indexOf('|');
    String endpoint = bar < 0 ? address : address.substring(0, bar);
    try {
      String host = new java.net.URI(endpoint).getHost();
      return host == null ? "" : host.toLowerCase(Locale.ROOT);
    } catch (java.net.URISyntaxException e) {
      return "";
    }
  }

  /**
   * The KV sources' statistics as read.
   *
   * @param origin where they were read from, for the report
   * @param stats the latest statistics of every source, sorted by source id
   * @param unavailable why there are none to show, or {@code null} when they were read
   */
  record Sources(String origin, List<SourceStats> stats, String unavailable) {
    Sources {
      stats = List.copyOf(stats);
    }

    static Sources none(String why) {
      return new Sources("", List.of(), why);
    }
  }

  /** A line of a statistics dump that is neither a statistics record nor a kcat envelope. */
  static final class BadInputException extends Exception {
    BadInputException(String message) {
      super(message);
    }
  }

  /**
   * Reads the compacted statistics topic to its end: the latest record of each source, a tombstone
   * removing it. A topic that does not exist or cannot be read gives no statistics and the reason,
   * not a failure: the routing what-if does not need them.
   */
  static Sources fromTopic(String bootstrap, String topic) {
    Map<String, byte[]> view;
    try {
      view = CompactedView.read(bootstrap, topic, "prefixlog-analyze");
    } catch (TopicScan.ScanException | IOException e) {
      return Sources.none(e.getMessage());
    }
    JsonSerde<SourceStats> serde = JsonSerde.of(SourceStats.class);
    List<SourceStats> stats = new ArrayList<>();
    for (Map.Entry<String, byte[]> entry : view.entrySet()) {
      try {
        SourceStats value = serde.fromBytes(entry.getValue());
        if (value != null && value.source() != null) {
          stats.add(value);
        }
      } catch (RuntimeException e) {
        return Sources.none(topic + " key " + entry.getKey() + ": " + e.getMessage());
      }
    }
    return new Sources(topic, stats, stats.isEmpty() ? topic + " is empty" : null);
  }

  /**
   * Reads a dump of the statistics topic: one record value per line, or kcat {@code -J} envelopes
   * whose {@code payload} is the value (as a JSON string or object) or {@code null}, a tombstone of
   * its {@code key}. The latest line of a source wins, as compaction keeps it.
   */
  static Sources fromFile(Path file) throws IOException, BadInputException {
    Map<String, SourceStats> latest = new TreeMap<>();
    JsonSerde<SourceStats> serde = JsonSerde.of(SourceStats.class);
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      int number = 0;
      while ((line = reader.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        String where = file + ":" + number + ": ";
        JsonNode node;
        try {
          node = Json.mapper().readTree(line);
        } catch (IOException e) {
          throw new BadInputException(where + JsonSerde.describeReadFailure(JsonNode.class, e));
        }
        if (node == null || !node.isObject()) {
          throw new BadInputException(where + "not a JSON object");
        }
        JsonNode value = node;
        if (node.has("payload")) {
          JsonNode payload = node.get("payload");
          if (payload.isNull()) {
            if (!node.path("key").isTextual()) {
              throw new BadInputException(where + "a tombstone envelope without a text key");
            }
            latest.remove(node.get("key").asText());
            continue;
          }
          value = payload.isTextual() ? parse(payload.asText(), where) : payload;
        }
        SourceStats stats;
        try {
          stats = serde.fromBytes(Json.mapper().writeValueAsBytes(value));
        } catch (RuntimeException e) {
          throw new BadInputException(where + e.getMessage());
        }
        if (stats.source() == null || stats.source().isEmpty()) {
          throw new BadInputException(where + "no source: not a kv.source-stats record");
        }
        latest.put(stats.source(), stats);
      }
    }
    return new Sources(
        file.toString(),
        List.copyOf(latest.values()),
        latest.isEmpty() ? file + " holds no source statistics" : null);
  }

  private static JsonNode parse(String text, String where) throws BadInputException {
    try {
      return Json.mapper().readTree(text);
    } catch (IOException e) {
      throw new BadInputException(where + JsonSerde.describeReadFailure(JsonNode.class, e));
    }
  }

  /**
   * The engine's usage over {@code lookups}: Σ prompt and Σ cached tokens of the requests that
   * carry both (the parser has already read an absent {@code cached_tokens} as 0 beside a known
   * {@code prompt_tokens}, as vLLM omits zero).
   */
  static EngineTokenTotals usage(List<Lookup> lookups) {
    long requests = 0;
    long prompt = 0;
    long cached = 0;
    for (Lookup lookup : lookups) {
      if (lookup.promptTokens() != LookupRequest.UNKNOWN
          && lookup.cachedTokens() != LookupRequest.UNKNOWN) {
        requests++;
        prompt += lookup.promptTokens();
        cached += lookup.cachedTokens();
      }
    }
    return new EngineTokenTotals(requests, prompt, cached);
  }

  /** One fleet's line: the engine's own hit rate over the same requests as the simulation. */
  static String usageLine(EngineTokenTotals usage, long requests) {
    if (!usage.known()) {
      return "    engine actual: not reported (no prompt_tokens in the records)\n";
    }
    return String.format(
        Locale.ROOT,
        "    engine actual: %s of %s prompt tokens cached (%s) over the %s of %s requests that"
            + " carry%n      the engine's usage: the real fleet, its own routing and caches%n",
        Units.count(usage.cachedTokens()),
        Units.count(usage.promptTokens()),
        Quantities.percent(usage.hitRate()),
        Units.count(usage.requests()),
        Units.count(requests));
  }

  /** Requests by upstream, then the KV sources' table, after every fleet's simulation. */
  static String summary(Sources sources, int replicas, List<Lookup> lookups) {
    StringBuilder s = new StringBuilder();
    boolean attributed = byUpstream(s, lookups, sources);
    if (sources.unavailable() != null) {
      s.append("  KV sources: none to show (")
          .append(sources.unavailable())
          .append(
              "); the engines' block counts need kv.source-stats (--source-stats FILE with"
                  + " --file)\n");
      if (!attributed) {
        s.append(NOT_ATTRIBUTED);
      }
      return s.toString();
    }
    List<SourceStats> stats = sources.stats();
    s.append(
        String.format(
            Locale.ROOT,
            "  KV sources: %s in %s, each one's latest statistics (engine blocks, counted since"
                + " the%n    stream app first saw the source), beside %s simulated%n",
            Units.count(stats.size()),
            sources.origin(),
            Units.count(replicas, "replica")));
    int width = "source".length();
    for (SourceStats stat : stats) {
      width = Math.max(width, stat.source().length());
    }
    // Rows are stripped of trailing blanks: the last column is empty on the "all" row.
    String format = "    %-" + width + "s %8s %8s %8s %8s %12s %6s %5s %8s %8s %12s";
    row(
        s,
        String.format(
            Locale.ROOT,
            format,
            "source",
            "stored",
            "share",
            "removed",
            "resident",
            "tokens",
            "tok/bl",
            "gaps",
            "restarts",
            "clears",
            "lifetime p50"));
    long stored = 0;
    long removed = 0;
    long resident = 0;
    long tokens = 0;
    long gaps = 0;
    long restarts = 0;
    long clears = 0;
    for (SourceStats stat : stats) {
      stored += value(stat.storesTotal());
      removed += value(stat.removalsTotal());
      resident += value(stat.residentBlocks());
      tokens += value(stat.residentTokens());
      gaps += value(stat.gaps());
      restarts += value(stat.restarts());
      clears += value(stat.clearsTotal());
    }
    long maxStored = 0;
    for (SourceStats stat : stats) {
      maxStored = Math.max(maxStored, value(stat.storesTotal()));
      row(
          s,
          String.format(
              Locale.ROOT,
              format,
              stat.source(),
              Units.count(value(stat.storesTotal())),
              stored == 0 ? "-" : Quantities.percent((double) value(stat.storesTotal()) / stored),
              Units.count(value(stat.removalsTotal())),
              Units.count(value(stat.residentBlocks())),
              Units.count(value(stat.residentTokens())),
              tokensPerBlock(value(stat.residentTokens()), value(stat.residentBlocks())),
              Units.count(value(stat.gaps())),
              Units.count(value(stat.restarts())),
              Units.count(value(stat.clearsTotal())),
              stat.lifetimeP50Ms() == null
                  ? "-"
                  : Quantities.span(Duration.ofMillis(stat.lifetimeP50Ms()))));
    }
    row(
        s,
        String.format(
            Locale.ROOT,
            format,
            "all",
            Units.count(stored),
            stored == 0 ? "-" : "100.0%",
            Units.count(removed),
            Units.count(resident),
            Units.count(tokens),
            tokensPerBlock(tokens, resident),
            Units.count(gaps),
            Units.count(restarts),
            Units.count(clears),
            ""));
    if (stored > 0 && stats.size() > 1) {
      s.append(
          String.format(
              Locale.ROOT,
              "    blocks stored max/mean over sources: %.2f (the real fleet's balance of"
                  + " computed work)%n",
              maxStored * (double) stats.size() / stored));
    }
    if (stats.size() != replicas) {
      s.append(
          String.format(
              Locale.ROOT,
              "    %s against %s simulated: --replicas %d simulates a fleet of the captured"
                  + " size%n",
              Units.count(stats.size(), "KV source"),
              Units.count(replicas, "replica"),
              stats.size()));
    }
    if (gaps + restarts > 0) {
      s.append(
          """
                  gaps and restarts: the bridge lost events or the engine restarted; the counts
                    miss what was lost, and a restart emptied that engine's cache
              """);
    }
    s.append(attributed ? JOINED_BY_HOST : NOT_ATTRIBUTED);
    s.append(
        """
            comparable: the engine's hit rate and the simulated prefix rates (shares of the prompt
              served from cache); the real fleet's max/mean figures (requests over upstreams,
              blocks stored over sources) and the simulated ones (1.00 = even; stored blocks count
              computed work only). Not comparable: units (engine tokens and blocks of tok/bl
              tokens against the records' chunks), cache sizes (the engines' own against C), time
              spans (source counts run from the stream app's first sight of each source, not over
              these requests only).
        """);
    return s.toString();
  }

  private static void row(StringBuilder s, String row) {
    s.append(row.stripTrailing()).append('\n');
  }

  private static String tokensPerBlock(long tokens, long blocks) {
    return blocks == 0 ? "-" : String.format(Locale.ROOT, "%.1f", (double) tokens / blocks);
  }

  private static long value(Long boxed) {
    return boxed == null ? 0 : boxed;
  }
}
