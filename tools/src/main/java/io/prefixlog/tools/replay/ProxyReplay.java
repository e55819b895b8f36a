package io.prefixlog.tools.replay;

import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code replay --via-proxy}: sends each replayed turn as a real HTTP/1.1 request ({@link
 * HttpClient}) to the capture proxy, as the simulated client would to its engine: the conversation
 * id as {@code X-Session-ID} (or no session header at all, as most SDK clients send, when so
 * configured), a fresh {@code X-Request-Id}, {@code User-Agent: prefixlog-replay/<version>}. At
 * most {@code concurrency} requests are in flight; a session's next turn is sent only once its
 * previous answer has been read in full (a chat client waits for the answer), so the capture sees
 * each session's turns in order.
 */
final class ProxyReplay {
  static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(2);
  private static final Logger LOGGER = LoggerFactory.getLogger(ProxyReplay.class);

  private final Terminal terminal;
  private final URI base;
  private final int concurrency;
  private final StreamChoice streamChoice;
  private final String userAgent;
  private final boolean sessionHeader;
  private final HttpClient client;

  private final Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
  private final LongAdder errors = new LongAdder();
  private final LongAdder ok = new LongAdder();
  private final LongAdder streamed = new LongAdder();
  private final LongAdder promptTokens = new LongAdder();
  private final LongAdder cachedTokens = new LongAdder();
  private final AtomicReference<String> firstFailure = new AtomicReference<>();
  private final long[] latencies;
  private final AtomicLong completed = new AtomicLong();

  ProxyReplay(
      Terminal terminal,
      URI base,
      int concurrency,
      double streamFraction,
      String userAgent,
      boolean sessionHeader,
      int plannedRequests) {
    this.terminal = terminal;
    this.base = base;
    this.concurrency = concurrency;
    this.streamChoice = new StreamChoice(streamFraction);
    this.userAgent = userAgent;
    this.sessionHeader = sessionHeader;
    this.latencies = new long[plannedRequests];
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  /** What one run did, for the summary and the exit code. */
  record Outcome(long sent, long bodyBytes, long ok, long failed, long sessions) {}

  /**
   * Sends every turn, waits for every answer.
   *
   * @param stop polled before each send: true stops the run early (Ctrl-C)
   */
  Outcome run(Turns turns, Progress progress, double rate, BooleanSupplier stop)
      throws InterruptedException {
    Semaphore slots = new Semaphore(concurrency);
    Map<Integer, CompletableFuture<Void>> lastOfSession = new HashMap<>();
    long sent = 0;
    long bodyBytes = 0;
    long started = System.nanoTime();
    for (Turns.Turn turn : turns) {
      if (stop.getAsBoolean()) {
        break;
      }
      CorpusReplayService.pace(rate, started, sent);
      slots.acquire();
      boolean stream = streamChoice.streams(sent);
      byte[] body = stream ? StreamChoice.streaming(turn.request().body()) : turn.request().body();
      HttpRequest request = request(turn, body);
      int index = (int) sent;
      CompletableFuture<Void> previous =
          lastOfSession.getOrDefault(turn.session(), CompletableFuture.completedFuture(null));
      CompletableFuture<Void> done =
          previous
              .thenCompose(ignored -> send(request, index, stream))
              .whenComplete(
                  (ignored, e) -> {
                    slots.release();
                    progress.update(completed.incrementAndGet());
                  });
      if (turn.last()) {
        lastOfSession.remove(turn.session());
      } else {
        lastOfSession.put(turn.session(), done);
      }
      sent++;
      bodyBytes += body.length;
    }
    slots.acquire(concurrency); // every answer is in
    slots.release(concurrency);
    long sessions = turns.sessionsStarted();
    return new Outcome(sent, bodyBytes, ok.sum(), sent - ok.sum(), sessions);
  }

  private HttpRequest request(Turns.Turn turn, byte[] body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(ReplayEvents.PATH))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .header("User-Agent", userAgent);
    if (sessionHeader) {
      request.header("X-Session-ID", turn.request().conversationId());
    }
    return request
        .header("X-Request-Id", turn.requestId())
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
  }

  private CompletableFuture<Void> send(HttpRequest request, int index, boolean stream) {
    long start = System.nanoTime();
    return client
        .sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
        .handle(
            (response, e) -> {
              latencies[index] = System.nanoTime() - start;
              if (e != null) {
                errors.increment();
                firstFailure.compareAndSet(null, request.uri() + ": " + e);
                LOGGER.debug("request failed uri={}", request.uri(), e);
                return null;
              }
              int status = response.statusCode();
              statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
              if (status / 100 == 2) {
                ok.increment();
                if (stream) {
                  streamed.increment();
                }
                usage(response.body(), stream);
              } else {
                firstFailure.compareAndSet(null, request.uri() + ": HTTP " + status);
              }
              return null;
            });
  }

  /** Adds the engine's reported usage: the JSON's, or the last SSE event's that carries one. */
  private void usage(byte[] body, boolean stream) {
    AnswerUsage usage = AnswerUsage.parse(body, stream);
    if (usage != null) {
      promptTokens.add(usage.promptTokens());
      cachedTokens.add(usage.cachedTokens());
    }
  }

  void printSummary(Outcome outcome, int files, long elapsedNanos, double rate) {
    double seconds = Math.max(elapsedNanos, 1) / 1e9;
    long[] sorted = Arrays.copyOf(latencies, (int) outcome.sent());
    Arrays.sort(sorted);
    Map<String, Long> counts = new TreeMap<>();
    statuses.forEach((status, n) -> counts.put(Integer.toString(status), n.sum()));
    if (errors.sum() > 0) {
      counts.put("error", errors.sum());
    }
    StringBuilder statusLine = new StringBuilder();
    counts.forEach(
        (status, n) ->
            statusLine
                .append(statusLine.length() == 0 ? "" : ", ")
                .append(status)
                .append(' ')
                .append(Units.count(n)));
    long prompt = promptTokens.sum();
    terminal
        .out()
        .printf(
            Locale.ROOT,
            "replay: %s requests from %s conversations (%d corpus file%s) via %s%n"
                + "  bodies %s, %s, %s requests/s, concurrency %d, rate %s, streamed %s%n"
                + "  status %s%n"
                + "  latency p50 %.1f ms, p99 %.1f ms, max %.1f ms%n"
                + "  usage reported by the engine: %s prompt tokens, %s cached (%.1f %%)%n",
            Units.count(outcome.sent()),
            Units.count(outcome.sessions()),
            files,
            files == 1 ? "" : "s",
            base,
            Units.bytes(outcome.bodyBytes()),
            Units.seconds(elapsedNanos),
            Units.count(Math.round(outcome.sent() / seconds)),
            concurrency,
            rate == 0 ? "unlimited" : rate + "/s",
            Units.count(streamed.sum()),
            statusLine.length() == 0 ? "none" : statusLine,
            percentile(sorted, 0.50) / 1e6,
            percentile(sorted, 0.99) / 1e6,
            sorted.length == 0 ? 0.0 : sorted[sorted.length - 1] / 1e6,
            Units.count(prompt),
            Units.count(cachedTokens.sum()),
            prompt == 0 ? 0.0 : 100.0 * cachedTokens.sum() / prompt);
  }

  String firstFailure() {
    return firstFailure.get();
  }

  /** Nearest-rank percentile of sorted values; 0 when empty. */
  static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
