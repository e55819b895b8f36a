package io.prefixlog.tools.analyze;

import io.prefixlog.analysis.mrc.EngineTokenTotals;
import io.prefixlog.analysis.routing.FleetResult;
import io.prefixlog.analysis.routing.FleetSimulator;
import io.prefixlog.analysis.routing.ReplicaStats;
import io.prefixlog.analysis.routing.RoutingPolicy;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Units;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * {@code analyze --replicas N --replica-capacity C}: the lookups replayed in time order over N
 * replicas of C chunks each under every routing policy asked ({@link FleetSimulator}), per cache
 * (model): a model's replicas serve only that model, as each model has its own cache in the
 * single-cache analysis.
 */
final class RoutingWhatIf {
  static final String CSV_NAME = "routing.csv";

  /**
   * What to simulate.
   *
   * @param replicas N
   * @param capacityChunks C, per replica
   * @param capacityText C as given
   * @param bytesPerChunk KV bytes per chunk, or 0 when unknown
   * @param policies the policies, in report order
   * @param loadWindow how long a routed request counts toward its replica's load
   * @param seed the random policy's seed
   */
  record Plan(
      int replicas,
      long capacityChunks,
      String capacityText,
      long bytesPerChunk,
      List<RoutingPolicy> policies,
      Duration loadWindow,
      long seed) {
    Plan {
      policies = List.copyOf(policies);
    }
  }

  /**
   * One cache's replay under every policy, and what the engine itself reported for the same
   * requests.
   */
  record Fleet(
      String cache,
      long requests,
      long withoutSession,
      List<FleetResult> results,
      EngineTokenTotals engine) {
    Fleet {
      results = List.copyOf(results);
    }
  }

  private RoutingWhatIf() {}

  /**
   * Replays {@code lookups} (in timestamp order) under every policy of the plan.
   *
   * @param progress a progress bar per policy and cache, given its label and request count
   */
  static List<Fleet> run(
      Plan plan,
      List<Lookup> lookups,
      Function<Lookup, String> cacheOf,
      java.util.function.BiFunction<String, Long, Progress> progress) {
    Map<String, List<Lookup>> byCache = new LinkedHashMap<>();
    for (Lookup lookup : lookups) {
      byCache.computeIfAbsent(cacheOf.apply(lookup), c -> new ArrayList<>()).add(lookup);
    }
    List<Fleet> fleets = new ArrayList<>();
    for (Map.Entry<String, List<Lookup>> cache : new java.util.TreeMap<>(byCache).entrySet()) {
      List<Lookup> requests = cache.getValue();
      long[] sessions = new long[requests.size()];
      long withoutSession = 0;
      for (int i = 0; i < sessions.length; i++) {
        Lookup lookup = requests.get(i);
        if (lookup.sessionKey().isEmpty()) {
          withoutSession++;
        }
        sessions[i] = sessionKey(lookup);
      }
      List<FleetResult> results = new ArrayList<>();
      for (RoutingPolicy policy : plan.policies()) {
        FleetSimulator fleet =
            new FleetSimulator(
                policy,
                plan.replicas(),
                plan.capacityChunks(),
                plan.loadWindow().toMillis(),
                plan.seed());
        try (Progress bar = progress.apply(policy.wireName(), (long) requests.size())) {
          for (int i = 0; i < sessions.length; i++) {
            Lookup lookup = requests.get(i);
            long[] keys = lookup.keys();
            fleet.accept(
                lookup.timestampMs(),
                sessions[i],
                keys,
                0,
                keys.length,
                lookup.chunkSize(),
                lookup.seqLen());
            if ((i & 1023) == 1023) {
              bar.update(i + 1);
            }
          }
          bar.update(sessions.length);
        }
        results.add(fleet.result());
      }
      fleets.add(
          new Fleet(
              cache.getKey(),
              requests.size(),
              withoutSession,
              results,
              EngineFigures.usage(requests)));
    }
    return fleets;
  }

  /**
   * The 64-bit session key: the hex {@code session_key} read like a chunk hash; without one
   * (LMCache's lines), the first chunk's hash, so that requests sharing a first chunk stay together
   * (the report counts them); without chunks either, 0.
   */
  static long sessionKey(Lookup lookup) {
    String session = lookup.sessionKey();
    if (!session.isEmpty()) {
      try {
        return LookupParser.key(session);
      } catch (IllegalArgumentException e) {
        // Not hex (a hand-written file): any stable 64-bit value keeps the session together.
        long h = 1125899906842597L;
        for (int i = 0; i < session.length(); i++) {
          h = 31 * h + session.charAt(i);
        }
        return h;
      }
    }
    return lookup.keys().length > 0 ? lookup.keys()[0] : 0;
  }

  /** The report section. */
  static String summary(Plan plan, List<Fleet> fleets) {
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "%n== routing what-if: %d replicas x %s each; load = units routed in the last %s%n",
            plan.replicas(),
            capacityText(plan.capacityChunks(), plan.bytesPerChunk()),
            Quantities.windowText(plan.loadWindow())));
    for (Fleet fleet : fleets) {
      s.append("  ").append(fleet.cache()).append(": ");
      s.append(Units.count(fleet.requests(), "request"));
      if (fleet.withoutSession() > 0) {
        s.append(", ")
            .append(Units.count(fleet.withoutSession()))
            .append(" without session_key (session affinity uses their first chunk hash)");
      }
      s.append('\n');
      s.append(
          String.format(
              Locale.ROOT,
              "    %-13s %13s %12s %17s %15s %14s%n",
              "policy",
              "prefix chunks",
              "prefix units",
              "requests max/mean",
              "chunks max/mean",
              "replica range"));
      for (FleetResult result : fleet.results()) {
        ReplicaStats total = result.total();
        double low = 1;
        double high = 0;
        for (ReplicaStats replica : result.replicas()) {
          if (replica.chunkLookups() > 0) {
            low = Math.min(low, replica.chunkHitRate());
            high = Math.max(high, replica.chunkHitRate());
          }
        }
        s.append(
            String.format(
                Locale.ROOT,
                "    %-13s %13s %12s %17.2f %15.2f %14s%n",
                result.policy().wireName(),
                Quantities.percent(total.chunkHitRate()),
                Quantities.percent(total.unitHitRate()),
                result.requestImbalance(),
                result.chunkImbalance(),
                high < low
                    ? "-"
                    : Quantities.percent(low) + "-" + Quantities.percent(high).strip()));
      }
      s.append("    per replica: prefix-chunk hit rate, requests\n");
      s.append("    replica");
      for (FleetResult result : fleet.results()) {
        s.append(String.format(Locale.ROOT, " %18s", result.policy().wireName()));
      }
      s.append('\n');
      for (int r = 0; r < plan.replicas(); r++) {
        s.append(String.format(Locale.ROOT, "    %7d", r));
        for (FleetResult result : fleet.results()) {
          ReplicaStats replica = result.replicas().get(r);
          s.append(
              String.format(
                  Locale.ROOT,
                  " %18s",
                  (replica.chunkLookups() == 0 ? "-" : Quantities.percent(replica.chunkHitRate()))
                      + " "
                      + Units.count(replica.requests())));
        }
        s.append('\n');
      }
      s.append(EngineFigures.usageLine(fleet.engine(), fleet.requests()));
    }
    return s.toString();
  }

  private static String capacityText(long chunks, long bytesPerChunk) {
    String text = Units.count(chunks, "chunk");
    return bytesPerChunk > 0
        ? text + " (" + Quantities.binaryBytes((double) chunks * bytesPerChunk) + ")"
        : text;
  }

  /** Writes {@value #CSV_NAME}: one row per cache, policy and replica ({@code *} = the fleet). */
  static Path writeCsv(Path dir, Plan plan, List<Fleet> fleets) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(CSV_NAME);
    try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      w.write(
          "model,policy,replicas,capacity_chunks,replica,requests,chunk_lookups,prefix_hits,"
              + "units,unit_hits,prefix_chunks,prefix_units\n");
      for (Fleet fleet : fleets) {
        for (FleetResult result : fleet.results()) {
          List<ReplicaStats> rows = new ArrayList<>(result.replicas());
          rows.add(result.total());
          for (int r = 0; r < rows.size(); r++) {
            ReplicaStats stats = rows.get(r);
            w.write(
                String.format(
                    Locale.ROOT,
                    "%s,%s,%d,%d,%s,%d,%d,%d,%d,%d,%.6f,%.6f%n",
                    CsvFiles.quote(fleet.cache()),
                    result.policy().wireName(),
                    plan.replicas(),
                    plan.capacityChunks(),
                    r < rows.size() - 1 ? Integer.toString(r) : "*",
                    stats.requests(),
                    stats.chunkLookups(),
                    stats.prefixHits(),
                    stats.units(),
                    stats.unitHits(),
                    stats.chunkHitRate(),
                    stats.unitHitRate()));
          }
        }
      }
    }
    return file;
  }
}
