package io.prefixlog.benchmarks.sampling;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.CorpusRequests;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.RotatedRounds;
import io.prefixlog.bridge.proxy.OfflineCapture;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.bridge.proxy.SamplingConfig;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.chunk.ChunkLookups;
import io.prefixlog.core.session.SessionSampler;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.schemas.request.RawEventFrame;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

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
  private static final Benchmark BENCHMARK =
      new Benchmark(
          "SamplingCostBenchmark",
          "Publisher-thread cost per event of capture sampling (decision, chunk hashes,"
              + " metadata-only event) next to the full raw event with its body, same run.",
          Stream.concat(
                  Stream.of(
                      CorpusRequests.OPTION,
                      Option.value(
                          "share", "S", "0.1", "PREFIXLOG_SAMPLE_SESSIONS of the sampled bridge.")),
                  RotatedRounds.OPTIONS.stream())
              .toList());

  private SamplingCostBenchmark() {}

  /** The command line's values. */
  private record Settings(int conversations, double share, RotatedRounds.Rounds rounds) {
    static Settings of(CommandLine line) throws UsageException {
      int conversations = CorpusRequests.conversations(line);
      double share = line.doubleValue("share", 0.1, 0);
      if (share <= 0 || share >= 1) {
        throw new UsageException("--share must be above 0 and below 1, got " + share);
      }
      return new Settings(conversations, share, RotatedRounds.Rounds.of(line));
    }
  }

  /** One request and the session key the bridge derived for it. */
  private record Request(CorpusRequests.Request request, String sessionKey) {}

  private static final Request[] NONE = new Request[0];

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
    long bodyBytes = out.stream().mapToLong(r -> r.request().body().length).sum();
    System.out.printf(
        Locale.ROOT,
        "events: %d requests of %d sessions sampled out at share %s (of %d requests), bodies"
            + " %.1f MB, mean %d B%n",
        out.size(),
        out.stream().map(r -> r.request().sessionId()).distinct().count(),
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
        throw new IllegalStateException(
            "request " + r.request().id() + " was not encoded as expected");
      }
    }

    Request[] events = out.toArray(NONE);
    RotatedRounds.run(
        System.out,
        "event on the publisher thread",
        List.of(
            new RotatedRounds.Variant(
                "full raw event with body (reference, share 1)",
                e -> capture(full, events[e]).length),
            new RotatedRounds.Variant(
                "sampled-out event (decision + chunk hashes + metadata)",
                e -> capture(sampled, events[e]).length),
            new RotatedRounds.Variant(
                "sampling decision alone (HMAC of the session key)",
                e -> sampler.keeps(events[e].sessionKey()) ? 1 : 0),
            new RotatedRounds.Variant(
                "chunk hashes of the body alone",
                e -> hasher.chunks(events[e].request().body(), true).chunkHashes().size())),
        events.length,
        settings.rounds());
    Machine.footer(System.out);
    return 0;
  }

  private static byte[] capture(OfflineCapture bridge, Request r) {
    return CorpusRequests.capture(bridge, r.request());
  }

  /** The corpora's requests, with the session key the bridge derives for each. */
  private static List<Request> requests(int perFile, OfflineCapture bridge) throws IOException {
    List<Request> requests = new ArrayList<>();
    for (CorpusRequests.Request r : CorpusRequests.mixed(perFile)) {
      String key = RawEventFrame.readAsVersion1(CorpusRequests.capture(bridge, r)).sessionKey();
      requests.add(new Request(r, key));
    }
    return requests;
  }
}
