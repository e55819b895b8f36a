package io.prefixlog.tools.replay;

import io.prefixlog.cli.Progress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code replay --from-capture}: sends the captured requests again, on the {@link ReplayPlan}'s
 * schedule, to an OpenAI-compatible endpoint (a capture proxy, or an engine). One {@link
 * HttpClient} serves the whole run (HTTP/1.1, connections reused); at most {@code concurrency}
 * requests are outstanding, counting those that wait for their session's previous answer, so a slow
 * engine delays the schedule rather than piling up requests. A request is never sent before its due
 * time; how late each one went out is recorded.
 *
 * <p>Each request carries its captured body byte for byte, its path, the captured headers {@link
 * ReplayHeaders} keeps (its session headers), {@code User-Agent:
 * prefixlog-capture-replay/<version>} and a new {@code X-Request-Id}. Bodies never reach a log.
 */
final class CaptureReplay {
  private static final Logger LOGGER = LoggerFactory.getLogger(CaptureReplay.class);

  private final URI base;
  private final int concurrency;
  private final String userAgent;
  private final String runId;
  private final HttpClient client;

  /**
   * @param base the endpoint's base URL ({@code http://host:port/}); the captured paths resolve
   *     against it
   * @param runId distinguishes this run's request ids from another run's
   */
  CaptureReplay(URI base, int concurrency, String userAgent, String runId) {
    this.base = base;
    this.concurrency = concurrency;
    this.userAgent = userAgent;
    this.runId = runId;
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  /**
   * What happened to each step of a run, by step index.
   *
   * @param sent how many steps were sent (all unless stopped)
   * @param status the HTTP status, or -1 when the exchange failed, 0 when not sent
   * @param latencyNanos send to the last byte of the answer
   * @param lateNanos how long after its due time the request went out
   * @param usage what the engine reported, or null
   * @param elapsedNanos the first send to the last answer
   */
  record Outcome(
      int sent,
      int[] status,
      long[] latencyNanos,
      long[] lateNanos,
      AnswerUsage[] usage,
      long elapsedNanos,
      String firstFailure) {

    long answered() {
      long n = 0;
      for (int s : status) {
        if (s / 100 == 2) {
          n++;
        }
      }
      return n;
    }

    long failed() {
      return sent - answered();
    }
  }

  /**
   * Sends every step on schedule and waits for every answer.
   *
   * @param stop polled before each send: true stops the run early (Ctrl-C)
   */
  Outcome run(ReplayPlan plan, Progress progress, BooleanSupplier stop)
      throws InterruptedException {
    List<ReplayPlan.Step> steps = plan.steps();
    int n = steps.size();
    int[] status = new int[n];
    long[] latency = new long[n];
    long[] late = new long[n];
    AnswerUsage[] usage = new AnswerUsage[n];
    AtomicReference<String> firstFailure = new AtomicReference<>();
    AtomicLong completed = new AtomicLong();
    List<CompletableFuture<Void>> answered = new ArrayList<>(n);
    // Built before the clock starts: the first request's class loading and every header's
    // validation would otherwise make the schedule's start late.
    HttpRequest[] requests = new HttpRequest[n];
    for (int i = 0; i < n; i++) {
      try {
        requests[i] = request(steps.get(i).request(), i);
      } catch (IllegalArgumentException e) {
        firstFailure.compareAndSet(null, "request " + i + " cannot be built: " + e.getMessage());
      }
    }
    Semaphore slots = new Semaphore(concurrency);
    long start = System.nanoTime();
    int sent = 0;
    for (int i = 0; i < n; i++) {
      if (stop.getAsBoolean()) {
        break;
      }
      ReplayPlan.Step step = steps.get(i);
      long due = start + step.dueNanos();
      long wait;
      while ((wait = due - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      slots.acquire();
      int index = i;
      HttpRequest request = requests[i];
      if (request == null) {
        status[index] = -1;
        answered.add(CompletableFuture.completedFuture(null));
        slots.release();
        progress.update(completed.incrementAndGet());
        sent++;
        continue;
      }
      CompletableFuture<Void> previous =
          step.after() < 0 ? CompletableFuture.completedFuture(null) : answered.get(step.after());
      answered.add(
          previous
              .thenCompose(
                  ignored -> {
                    long sentAt = System.nanoTime();
                    late[index] = sentAt - due;
                    return client
                        .sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                        .handle(
                            (response, e) -> {
                              latency[index] = System.nanoTime() - sentAt;
                              record(index, response, e, status, usage, firstFailure);
                              return null;
                            });
                  })
              .thenApply(ignored -> (Void) null)
              .whenComplete(
                  (ignored, e) -> {
                    slots.release();
                    progress.update(completed.incrementAndGet());
                  }));
      sent++;
    }
    slots.acquire(concurrency); // every answer is in
    slots.release(concurrency);
    return new Outcome(
        sent, status, latency, late, usage, System.nanoTime() - start, firstFailure.get());
  }

  private HttpRequest request(CapturedRequest captured, int index) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(base.resolve(captured.path()))
            .timeout(ProxyReplay.REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .header("User-Agent", userAgent)
            .header("X-Request-Id", String.format(Locale.ROOT, "replay-%s-%d", runId, index));
    captured.headers().forEach(builder::header);
    return builder.POST(HttpRequest.BodyPublishers.ofByteArray(captured.body())).build();
  }

  private static void record(
      int index,
      HttpResponse<byte[]> response,
      Throwable failure,
      int[] status,
      AnswerUsage[] usage,
      AtomicReference<String> firstFailure) {
    if (failure != null) {
      status[index] = -1;
      firstFailure.compareAndSet(null, "request " + index + ": " + failure);
      LOGGER.debug("capture replay request failed index={} error={}", index, failure.toString());
      return;
    }
    status[index] = response.statusCode();
    if (status[index] / 100 != 2) {
      firstFailure.compareAndSet(
          null, "request " + index + " to " + response.uri() + ": HTTP " + status[index]);
      return;
    }
    boolean sse =
        response
            .headers()
            .firstValue("Content-Type")
            .map(type -> type.toLowerCase(Locale.ROOT).startsWith("text/event-stream"))
            .orElse(false);
    usage[index] = AnswerUsage.parse(response.body(), sse);
  }
}
