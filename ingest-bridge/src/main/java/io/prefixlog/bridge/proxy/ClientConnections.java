package io.prefixlog.bridge.proxy;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

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
 * <p>One instance per event loop; everything here runs on that loop (the connection map needs no
 * lock). The open count is shared by the loops.
 */
final class ClientConnections {
  static final String HEADER_TIMEOUT = "header";
  static final String IDLE_TIMEOUT = "idle";
  static final String BODY_TIMEOUT = "body";
  static final String RESPONSE_TIMEOUT = "response";

  private final Vertx vertx;
  private final AtomicInteger open;
  private final int max;
  private final long headerMillis;
  private final long idleMillis;
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
      bodyHeld = false;
    }

    void bodyHeld(HttpServerRequest request, boolean held) {
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
