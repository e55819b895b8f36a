package io.prefixlog.bridge.proxy;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Bounds what a client connection can hold without doing its part: at most {@code
 * PREFIXLOG_PROXY_MAX_CLIENT_CONNECTIONS} open across the event loops (one more is closed as it is
 * accepted), a complete request head within {@code PREFIXLOG_PROXY_HEADER_TIMEOUT} of connecting,
 * and no more than {@code PREFIXLOG_PROXY_CLIENT_IDLE_TIMEOUT} of silence while the proxy waits for
 * the client: between keep-alive requests, in the middle of a request body, or with a response the
 * client has stopped reading. Waiting for the engine (a long completion, a quiet stream, a body the
 * proxy holds back until the engine has a connection for it or takes more of it) is the upstream
 * timeout's business and never closes the client.
 *
 * <p>Silence alone is not enough for a body: a client that sends a byte now and then is never
 * silent for long. A request body must also arrive at {@code PREFIXLOG_PROXY_MIN_BODY_RATE},
 * averaged over each {@code PREFIXLOG_PROXY_BODY_RATE_WINDOW}, and be in within {@code
 * PREFIXLOG_PROXY_BODY_DEADLINE}; time the proxy holds the body back counts for neither. Such a
 * client is answered 408 when its response has not started, and closed.
 *
 * <p>One instance per event loop; everything here runs on that loop (the connection map needs no
 * lock). The open count is shared by the loops.
 */
final class ClientConnections {
  static final String HEADER_TIMEOUT = "header";
  static final String IDLE_TIMEOUT = "idle";
  static final String BODY_TIMEOUT = "body";
  static final String RESPONSE_TIMEOUT = "response";
  static final String BODY_RATE_TIMEOUT = "body_rate";
  static final String BODY_DEADLINE_TIMEOUT = "body_deadline";

  private final Vertx vertx;
  private final AtomicInteger open;
  private final int max;
  private final long headerMillis;
  private final long idleMillis;
  private final long minBodyRate;
  private final long windowNanos;
  private final long deadlineNanos;
  private final ProxyMetrics metrics;
  private final Map<HttpConnection, Watch> watches = new HashMap<>();

  /**
   * @param open the client connections open, all event loops together
   */
  ClientConnections(
      Vertx vertx, AtomicInteger open, ClientLimitsConfig limits, ProxyMetrics metrics) {
    this.vertx = vertx;
    this.open = open;
    this.max = limits.maxConnections();
    this.headerMillis = limits.headerTimeout().toMillis();
    this.idleMillis = limits.idleTimeout().toMillis();
    this.minBodyRate = limits.minBodyRate();
    this.windowNanos = limits.bodyRateWindow().toNanos();
    this.deadlineNanos = limits.bodyDeadline().toNanos();
    this.metrics = metrics;
  }

  /** A connection was accepted. */
  void opened(HttpConnection connection) {
    if (open.incrementAndGet() > max) {
      open.decrementAndGet();
      metrics.clientConnectionRefused();
      connection.close();
      return;
    }
    Watch watch = new Watch(connection);
    watches.put(connection, watch);
    connection.closeHandler(
        v -> {
          open.decrementAndGet();
          watch.cancel();
          watch.stopPace();
          watches.remove(connection);
        });
    watch.arm(headerMillis, HEADER_TIMEOUT);
  }

  /**
   * A request head arrived: the head timer stops; while its body comes the client may not fall
   * silent; once the response is out, the connection may idle for the idle timeout.
   */
  void requestStarted(HttpServerRequest request) {
    Watch watch = watches.get(request.connection());
    if (watch == null) {
      return;
    }
    watch.newRequest();
    if (!request.isEnded()) {
      watch.watchBody(request);
      watch.pace(request);
    }
    request.response().endHandler(v -> watch.arm(idleMillis, IDLE_TIMEOUT));
  }

  /**
   * The proxy stops reading the request's body ({@code held}) until the engine can take it: no
   * connection to it yet, or its write queue full. That is not the client's silence: the body's
   * idle timeout waits, and starts again once the proxy reads on ({@code !held}).
   */
  void bodyHeld(HttpServerRequest request, boolean held) {
    Watch watch = watches.get(request.connection());
    if (watch != null) {
      watch.bodyHeld(request, held);
    }
  }

  /**
   * What answers the client when its body is too slow or too late ({@code kind}): by default a 408
   * ({@link #answerTimeout}); an exchange answers itself, to let its engine request go and record
   * its end. The connection is closed after it either way.
   */
  void onBodyTimeout(HttpServerRequest request, Consumer<String> answer) {
    Watch watch = watches.get(request.connection());
    if (watch != null) {
      watch.bodyTimeout = answer;
    }
  }

  /** A 408 for a body that came too slowly or too late, unless the response has begun. */
  static void answerTimeout(HttpServerResponse response, String kind) {
    if (response.headWritten() || response.ended() || response.closed()) {
      return;
    }
    response.headers().clear();
    response
        .setStatusCode(408)
        .putHeader(HttpHeaders.CONNECTION, "close")
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .putHeader("X-Prefixlog-Error", kind)
        .end(
            kind.equals(BODY_DEADLINE_TIMEOUT)
                ? "prefixlog proxy: request body not complete within PREFIXLOG_PROXY_BODY_DEADLINE\n"
                : "prefixlog proxy: request body slower than PREFIXLOG_PROXY_MIN_BODY_RATE\n");
  }

  /**
   * The client's write queue is full and the engine's stream is paused for it: {@code drained} runs
   * once the client has taken some of the response. A client that takes nothing for the idle
   * timeout is closed, counted: paused, its exchange would otherwise keep the engine's connection
   * (and the engine's work for it), and the response bytes the proxy had already read, until the
   * upstream timeout (10 minutes by default).
   */
  void awaitDrain(HttpServerRequest request, Runnable drained) {
    HttpServerResponse response = request.response();
    long timer =
        vertx.setTimer(
            idleMillis,
            id -> {
              if (!response.closed()) {
                metrics.clientTimeout(RESPONSE_TIMEOUT);
                abort(request.connection());
              }
            });
    response.drainHandler(
        v -> {
          vertx.cancelTimer(timer);
          drained.run();
        });
  }

  /**
   * Closes a connection at once, with whatever is still queued for it. Vert.x's {@code close()}
   * (and a response's {@code reset()}, which is the same on HTTP/1) writes the close behind the
   * queued writes, so a client that reads nothing would never get it: its socket and those buffers
   * would stay for as long as the client keeps its window shut (ClientLimitsIT). Netty's close
   * fails the queued writes and frees their buffers. Vert.x has no public way to it, so this
   * reaches its connection class, and falls back to the graceful close should that class change.
   */
  static void abort(HttpConnection connection) {
    if (connection instanceof ConnectionBase base) {
      // From Vert.x's own handler context onwards: the pipeline's close would reach Vert.x's
      // handler, which makes it the graceful one again.
      base.channelHandlerContext().close();
    } else {
      connection.close();
    }
  }

  /** The timer of one connection. */
  private final class Watch {
    private final HttpConnection connection;
    private long timer = -1;
    private boolean bodyHeld;

    /** The body's rate and deadline check: its timer, and what it has measured so far. */
    private long paceTimer = -1;

    private long bodyStart;
    private long heldSince = -1;
    private long heldTotal;
    private long windowStart;
    private long windowBytes;

    /** Time the body was held back within the current window, up to its last release. */
    private long windowHeld;

    private Consumer<String> bodyTimeout;

    Watch(HttpConnection connection) {
      this.connection = connection;
    }

    void arm(long millis, String kind) {
      cancel();
      timer = vertx.setTimer(millis, id -> expire(kind));
    }

    /** Closes the connection if the body has not moved for the idle timeout. */
    void watchBody(HttpServerRequest request) {
      cancel();
      long seen = request.bytesRead();
      timer =
          vertx.setTimer(
              idleMillis,
              id -> {
                timer = -1;
                if (request.isEnded()) {
                  return; // the body is in; now the engine is waited for, not the client
                }
                if (request.bytesRead() == seen && !bodyHeld) {
                  expire(BODY_TIMEOUT);
                } else {
                  watchBody(request);
                }
              });
    }

    /** The head timer or the idle timer stops, and what held the last request's body is over. */
    void newRequest() {
      cancel();
      stopPace();
      bodyHeld = false;
      bodyTimeout = null;
    }

    /** Starts measuring a body that is still to come. */
    void pace(HttpServerRequest request) {
      long now = System.nanoTime();
      bodyStart = now;
      windowStart = now;
      windowBytes = request.bytesRead();
      heldSince = -1;
      heldTotal = 0;
      windowHeld = 0;
      schedulePace(request, now);
    }

    /** The next check: at the end of the current window, or at the deadline when sooner. */
    private void schedulePace(HttpServerRequest request, long now) {
      long untilWindow = windowStart + windowNanos - now;
      long untilDeadline = deadlineNanos - sending(now);
      long millis = Math.max(1, Math.min(untilWindow, untilDeadline) / 1_000_000 + 1);
      paceTimer =
          vertx.setTimer(
              millis,
              id -> {
                paceTimer = -1;
                checkPace(request);
              });
    }

    /** How long the client has been sending its body, less the time the proxy held it back. */
    private long sending(long now) {
      return now - bodyStart - heldTotal - (heldSince >= 0 ? now - heldSince : 0);
    }

    private void checkPace(HttpServerRequest request) {
      if (request.isEnded() || request.response().ended() || request.response().closed()) {
        return; // the body is in, or the exchange is over: nothing of the client's to measure
      }
      long now = System.nanoTime();
      if (sending(now) >= deadlineNanos) {
        expireBody(request, BODY_DEADLINE_TIMEOUT);
        return;
      }
      if (now - windowStart >= windowNanos) {
        // Time the proxy held the body back measures the engine, not the client: the rate is
        // taken over the rest of the window, and not at all when that is under half of it.
        long bytes = request.bytesRead() - windowBytes;
        long measured = now - windowStart - heldIn(now);
        if (measured >= windowNanos / 2
            && bytes * 1_000_000_000.0 < (double) minBodyRate * measured) {
          expireBody(request, BODY_RATE_TIMEOUT);
          return;
        }
        windowStart = now;
        windowBytes = request.bytesRead();
        windowHeld = 0;
      }
      schedulePace(request, now);
    }

    /** Time the body has been held back since the current window began. */
    private long heldIn(long now) {
      return windowHeld + (heldSince >= 0 ? now - Math.max(heldSince, windowStart) : 0);
    }

    private void expireBody(HttpServerRequest request, String kind) {
      cancel();
      metrics.clientTimeout(kind);
      Consumer<String> answer = bodyTimeout;
      if (answer != null) {
        answer.accept(kind);
      } else {
        answerTimeout(request.response(), kind);
      }
      // Behind the 408 (a graceful close writes what is queued first); nothing more is read.
      connection.close();
    }

    void stopPace() {
      if (paceTimer >= 0) {
        vertx.cancelTimer(paceTimer);
        paceTimer = -1;
      }
    }

    void bodyHeld(HttpServerRequest request, boolean held) {
      long now = System.nanoTime();
      if (held && heldSince < 0) {
        heldSince = now;
      } else if (!held && heldSince >= 0) {
        heldTotal += now - heldSince;
        windowHeld += now - Math.max(heldSince, windowStart);
        heldSince = -1;
      }
      bodyHeld = held;
      // The client's idle time counts from now, while its body is still watched (not once the
      // response is out and the idle timer runs instead).
      if (!held && timer >= 0 && !request.isEnded() && !request.response().ended()) {
        watchBody(request);
      }
    }

    void cancel() {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    }

    private void expire(String kind) {
      timer = -1;
      metrics.clientTimeout(kind);
      connection.close();
    }
  }
}
