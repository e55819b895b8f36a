package io.prefixlog.benchmarks.redaction;

import io.prefixlog.benchmarks.harness.Benchmark;
import io.prefixlog.benchmarks.harness.CorpusRequests;
import io.prefixlog.benchmarks.harness.Machine;
import io.prefixlog.benchmarks.harness.RotatedRounds;
import io.prefixlog.bridge.proxy.CaptureConfig;
import io.prefixlog.bridge.proxy.OfflineCapture;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.request.BodyRedaction;
import io.prefixlog.core.request.WildcardNames;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What body redaction costs the bridge's publisher thread per event: the raw event with its body
 * and no rule (the reference), with the default credential-field rules (what every bridge runs),
 * and with those and an e-mail pattern (what a user who asks for personal data to be removed runs).
 * Every variant encodes the same events through the bridge's own event factory ({@link
 * OfflineCapture}); the corpora hold no credential fields, so the figures are the cost of looking,
 * which every body pays.
 *
 * <p>The publisher thread runs after the response has been sent, so none of this is on the
 * request's path. {@code RedactionCostBenchmark --help} lists the options.
 */
public final class RedactionCostBenchmark {
  /**
   * An e-mail address: the pattern users ask for first, anchored at a word boundary as the README
   * advises (without it, every position inside a long word starts a match attempt).
   */
  static final Pattern EMAIL = Pattern.compile("\\b[\\w.+-]+@[\\w-]+\\.[\\w.-]+");

  private static final Benchmark BENCHMARK =
      new Benchmark(
          "RedactionCostBenchmark",
          "Publisher-thread cost per event of body redaction (default field rules; with an e-mail"
              + " pattern) next to the raw event without redaction, same run.",
          Stream.concat(Stream.of(CorpusRequests.OPTION), RotatedRounds.OPTIONS.stream()).toList());

  private RedactionCostBenchmark() {}

  /** The command line's values. */
  private record Settings(int conversations, RotatedRounds.Rounds rounds) {
    static Settings of(CommandLine line) throws UsageException {
      return new Settings(CorpusRequests.conversations(line), RotatedRounds.Rounds.of(line));
    }
  }

  public static void main(String[] args) throws Exception {
    BENCHMARK.main(args, Settings::of, RedactionCostBenchmark::run);
  }

  private static OfflineCapture bridge(WildcardNames fields, List<Pattern> patterns) {
    return new OfflineCapture(
        ProxyConfig.defaults(URI.create("http://127.0.0.1:8000"), "127.0.0.1:9092")
            .with(CaptureConfig.REDACT_FIELDS, fields)
            .with(CaptureConfig.REDACT_PATTERNS, patterns));
  }

  private static int run(Settings settings) throws Exception {
    System.out.println(BENCHMARK.title());
    Machine.header(System.out);
    List<CorpusRequests.Request> requests = CorpusRequests.mixed(settings.conversations());
    long bodyBytes = requests.stream().mapToLong(r -> r.body().length).sum();
    System.out.printf(
        Locale.ROOT,
        "events: %d requests, bodies %.1f MB, mean %d B%n",
        requests.size(),
        bodyBytes / 1e6,
        bodyBytes / Math.max(1, requests.size()));
    OfflineCapture none = bridge(new WildcardNames(List.of()), List.of());
    OfflineCapture fields = bridge(new WildcardNames(BodyRedaction.DEFAULT_FIELDS), List.of());
    OfflineCapture email = bridge(new WildcardNames(BodyRedaction.DEFAULT_FIELDS), List.of(EMAIL));
    RotatedRounds.run(
        System.out,
        "event on the publisher thread",
        List.of(
            new RotatedRounds.Variant(
                "raw event, no redaction rule (reference)", e -> capture(none, requests.get(e))),
            new RotatedRounds.Variant(
                "default field rules (PREFIXLOG_REDACT_FIELDS)",
                e -> capture(fields, requests.get(e))),
            new RotatedRounds.Variant(
                "default field rules and an e-mail pattern", e -> capture(email, requests.get(e)))),
        requests.size(),
        settings.rounds());
    Machine.footer(System.out);
    return 0;
  }

  private static long capture(OfflineCapture bridge, CorpusRequests.Request r) {
    return CorpusRequests.capture(bridge, r).length;
  }
}
