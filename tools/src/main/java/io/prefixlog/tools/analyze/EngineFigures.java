package io.prefixlog.tools.analyze;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.core.mrc.EngineUsage;
import io.prefixlog.core.mrc.LookupRequest;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.tools.cli.CompactedView;
import io.prefixlog.tools.cli.TopicScan;
import io.prefixlog.tools.cli.Units;
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
 * <p>The two cannot be joined per source today: a captured request does not name the engine that
 * served it (the capture proxy forwards to one upstream, which may itself be a router), so the
 * request figures are given per model over the whole fleet, and the KV figures per source.
 */
final class EngineFigures {
  private EngineFigures() {}

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
  static EngineUsage usage(List<Lookup> lookups) {
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
    return new EngineUsage(requests, prompt, cached);
  }

  /** One fleet's line: the engine's own hit rate over the same requests as the simulation. */
  static String usageLine(EngineUsage usage, long requests) {
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

  /** The KV sources' table, after every fleet's simulation. */
  static String summary(Sources sources, int replicas) {
    StringBuilder s = new StringBuilder();
    if (sources.unavailable() != null) {
      s.append("  KV sources: none to show (")
          .append(sources.unavailable())
          .append(
              "); the engines' block counts need kv.source-stats (--source-stats FILE with"
                  + " --file)\n");
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
          "    gaps and restarts: the bridge lost events or the engine restarted; the counts miss"
              + " what was lost, and a restart emptied that engine's cache\n");
    }
    s.append(
        """
            not per source: requests, prompt and cached tokens. A captured request does not name the
              engine that served it, so the "engine actual" line above is the whole fleet's.
            comparable: the engine's hit rate and the simulated prefix rates (shares of the prompt
              served from cache); blocks stored max/mean and the simulated max/mean (1.00 = even;
              stored blocks count computed work only). Not comparable: units (engine tokens and
              blocks of tok/bl tokens against the records' chunks), cache sizes (the engines' own
              against C), time spans (source counts run from the stream app's first sight of each
              source, not over these requests only).
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
