package io.prefixlog.benchmarks.sampling;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.Medians;
import io.prefixlog.bridge.proxy.OfflineCapture;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.SamplingConfig;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.session.SessionSampler;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.RawEventFrame;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What capture sampling costs the bridge's publisher thread per event, side by side with what it
 * already pays: the full raw event with its body (the reference, {@code
 * PREFIXLOG_SAMPLE_SESSIONS=1}, the default) against the metadata-only event of a sampled-out
 * request (the decision, the body's chunk hashes, the event without body, at the configured share),
 * and the decision and the chunk hashes alone. Every variant encodes the same events, those of the
 * sessions the share leaves out, through the bridge's own event factory ({@link OfflineCapture});
 * rounds rotate the order of the variants and the figure is the median of the rounds, after warm-up
 * rounds.
 *
 * <p>The publisher thread runs after the response has been sent, so none of this is on the
 * request's path; the proxy's p50 is measured by ProxyBenchmark.
 *
 * <p>{@code SamplingCostBenchmark --help} lists the options.
 */
public final class SamplingCostBenchmark {
  private static final List<String> CORPORA =
      List.of(
          "agentic/tau_bench_gpt4o_airline.jsonl",
          "agentic/swe_agent_trajectories.jsonl",
          "chat/hh_rlhf_helpful_base_test.jsonl",
          "chat/oasst_en100_threads.jsonl");

  private static final Benchmark BENCHMARK =
      new Benchmark(
          "SamplingCostBenchmark",
          "Publisher-thread cost per event of capture sampling (decision, chunk hashes,"
              + " metadata-only event) next to the full raw event with its body, same run.",
          List.of(
              Option.value("conversations", "N", "40", "Conversations per corpus file."),
              Option.value("share", "S", "0.1", "PREFIXLOG_SAMPLE_SESSIONS of the sampled bridge."),
              Option.value("rounds", "N", "15", "Measured rounds (the median is reported)."),
              Option.value("warmup", "N", "5", "Rounds run first and not reported.")));

  private SamplingCostBenchmark() {}

  /** The command line's values. */
  private record Settings(int conversations, double share, int rounds, int warmup) {
    static Settings of(CommandLine line) throws UsageException {
      double share = line.doubleValue("share", 0.1, 0);
      if (share <= 0 || share >= 1) {
        throw new UsageException("--share must be above 0 and below 1, got " + share);
      }
      return new Settings(
          (int) Benchmark.atMost("conversations", line.longValue("conversations", 40, 1), 10_000),
          share,
          (int) Benchmark.atMost("rounds", line.longValue("rounds", 15, 1), 1_000),
          (int) Benchmark.atMost("warmup", line.longValue("warmup", 5, 0), 1_000));
    }
  }

  /** One request as the bridge saw it. */
  private record Request(String id, String sessionId, byte[] body, String sessionKey) {}

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Settings::of, SamplingCostBenchmark::run);
  }

  private static ProxyConfig config(double share) {
    return ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), "127.0.0.1:9092")
        .with(SamplingConfig.SESSIONS, share);
  }

  private static int run(Settings settings) throws Exception {
    System.out.println(BENCHMARK.title());
    Machine.header(System.out);
    OfflineCapture full = new OfflineCapture(config(1.0));
    OfflineCapture sampled = new OfflineCapture(config(settings.share()));
    SessionSampler sampler = new SessionSampler(settings.share(), SessionSampler.DEFAULT_SEED);
    ChunkLookups hasher = new ChunkLookups(config(1.0).sampling().chunkSizeBytes());
    List<Request> all = requests(settings.conversations(), full);
    List<Request> out = all.stream().filter(r -> !sampler.keeps(r.sessionKey())).toList();
    long bodyBytes = out.stream().mapToLong(r -> r.body().length).sum();
    System.out.printf(
        Locale.ROOT,
        "events: %d requests of %d sessions sampled out at share %s (of %d requests), bodies"
            + " %.1f MB, mean %d B%n",
        out.size(),
        out.stream().map(Request::sessionId).distinct().count(),
        settings.share(),
        all.size(),
        bodyBytes / 1e6,
        bodyBytes / Math.max(1, out.size()));
    // Every sampled-out event must be metadata-only, and every reference event carry its body:
    // otherwise the two variants would not measure what they say.
    for (Request r : out) {
      JsonNode s = Json.mapper().valueToTree(RawEventFrame.readAsVersion1(capture(sampled, r)));
      JsonNode f = Json.mapper().valueToTree(RawEventFrame.readAsVersion1(capture(full, r)));
      if (!"sampled_out".equals(s.path("body_omitted").asText(null))
          || s.has("body")
          || !f.has("body")) {
        throw new IllegalStateException("request " + r.id() + " was not encoded as expected");
      }
    }

    String[] names = {
      "full raw event with body (reference, share 1)",
      "sampled-out event (decision + chunk hashes + metadata)",
      "sampling decision alone (HMAC of the session key)",
      "chunk hashes of the body alone"
    };
    List<List<Double>> nsPerEvent = new ArrayList<>();
    for (int v = 0; v < names.length; v++) {
      nsPerEvent.add(new ArrayList<>());
    }
    long sink = 0;
    for (int round = 0; round < settings.warmup() + settings.rounds(); round++) {
      for (int i = 0; i < names.length; i++) {
        int variant = (round + i) % names.length;
        long start = System.nanoTime();
        for (Request r : out) {
          sink +=
              switch (variant) {
                case 0 -> capture(full, r).length;
                case 1 -> capture(sampled, r).length;
                case 2 -> sampler.keeps(r.sessionKey()) ? 1 : 0;
                default -> hasher.chunks(r.body(), true).chunkHashes().size();
              };
        }
        double ns = (System.nanoTime() - start) / (double) out.size();
        if (round >= settings.warmup()) {
          nsPerEvent.get(variant).add(ns);
        }
      }
    }
    // Rounds are short and the machine shared: a round's variants ran back to back, so the ratio
    // within a round holds better under changing load than the ratio of the medians.
    List<List<Double>> ratios = new ArrayList<>();
    for (int v = 0; v < names.length; v++) {
      List<Double> r = new ArrayList<>();
      for (int round = 0; round < settings.rounds(); round++) {
        r.add(nsPerEvent.get(v).get(round) / nsPerEvent.get(0).get(round));
      }
      ratios.add(r);
    }
    System.out.printf(
        Locale.ROOT,
        "per event on the publisher thread, median of %d rounds (%d warm-up); against the"
            + " reference: median of the rounds' ratios:%n",
        settings.rounds(),
        settings.warmup());
    for (int v = 0; v < names.length; v++) {
      double median = Medians.of(nsPerEvent.get(v));
      System.out.printf(
          Locale.ROOT,
          "  %-56s %10.1f us  %6.3fx the reference  (rounds %.1f to %.1f us)%n",
          names[v],
          median / 1000,
          Medians.of(ratios.get(v)),
          nsPerEvent.get(v).stream().mapToDouble(d -> d).min().orElse(0) / 1000,
          nsPerEvent.get(v).stream().mapToDouble(d -> d).max().orElse(0) / 1000);
    }
    System.out.println("(checksum " + sink + ")");
    Machine.footer(System.out);
    return 0;
  }

  private static byte[] capture(OfflineCapture bridge, Request r) {
    return bridge.capture(r.id(), 1_750_000_000_000L, r.sessionId(), r.body(), 200, null);
  }

  /** The corpora's requests, with the session key the bridge derives for each. */
  private static List<Request> requests(int perFile, OfflineCapture bridge) throws IOException {
    Path corpora =
        ProjectHome.find()
            .orElseThrow(() -> new IllegalStateException("no project root"))
            .resolve("corpora");
    ChatRequests chat = new ChatRequests("prefixlog-demo", ChatRequests.DEFAULT_SYSTEM_PROMPT);
    List<Request> requests = new ArrayList<>();
    for (String file : CORPORA) {
      for (Conversation conversation :
          CorpusFile.read(corpora.resolve(file)).stream().limit(perFile).toList()) {
        String sessionId = file + "#" + conversation.id();
        for (ChatRequests.ChatRequest request : chat.of(conversation)) {
          String id = sessionId + "#" + request.turn();
          byte[] event =
              bridge.capture(id, 1_750_000_000_000L, sessionId, request.body(), 200, null);
          String key = RawEventFrame.readAsVersion1(event).sessionKey();
          requests.add(new Request(id, sessionId, request.body(), key));
        }
      }
    }
    return requests;
  }
}
