package io.prefixlog.bridge.proxy;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One event loop's share of the proxy: its listener (all instances share the port) and its own
 * upstream connection pool, so that an exchange never changes threads. Captures go to {@code
 * captures} (the publisher's queue; the warm-up's discarding sink), requests under {@link
 * #OWN_PREFIX} to the ingest endpoint (none in the warm-up: 404).
 *
 * <p>TCP_NODELAY on both sides: a head and a body written as two segments must never wait for a
 * delayed ACK (a 40 ms stall per exchange).
 */
final class ProxyHandler extends VerticleBase {
  /** Paths under this prefix are the proxy's own and never forwarded. */
  static final String OWN_PREFIX = "/prefixlog/";

  /** Body pieces of up to 64 KiB (Netty's default is 8 KiB): a 20 KB body is one write. */
  private static final int MAX_CHUNK = 64 << 10;

  private final ProxyConfig config;
  private final SessionKeys sessionKeys;
  private final ProxyMetrics metrics;
  private final Handoff handoff;
  private final IngestHandler ingest;
  private final AtomicInteger openClients;
  private final CaptureMemory captureMemory;
  private final int port;
  private ClientConnections clients;
  private HttpClientAgent client;
  private ExchangeContext context;
  private HttpServer server;
  private volatile long exchanges;

  ProxyHandler(
      ProxyConfig config,
      SessionKeys sessionKeys,
      ProxyMetrics metrics,
      Consumer<CapturedExchange> captures,
      IngestHandler ingest,
      AtomicInteger inFlight,
      AtomicInteger openClients,
      CaptureMemory captureMemory,
      int port) {
    this.config = config;
    this.sessionKeys = sessionKeys;
    this.metrics = metrics;
    this.handoff = new Handoff(inFlight, captures, metrics);
    this.ingest = ingest;
    this.openClients = openClients;
    this.captureMemory = captureMemory;
    this.port = port;
  }

  @Override
  public Future<?> start() {
    HttpClientOptions clientOptions =
        new HttpClientOptions()
            .setTcpNoDelay(true)
            .setKeepAlive(true)
            .setKeepAliveTimeout((int) Math.max(1, config.upstream().keepAlive().toSeconds()))
            .setPipelining(false)
            .setDecompressionSupported(false)
            .setConnectTimeout(
                (int) Math.min(Integer.MAX_VALUE, config.upstream().connectTimeout().toMillis()))
            .setMaxHeaderSize(64 << 10)
            .setMaxChunkSize(MAX_CHUNK)
            // Bounds what a paused stream holds (UpstreamConfig.RECEIVE_BUFFER).
            .setReceiveBufferSize(config.upstream().receiveBuffer())
            .setSsl(config.upstream().tls());
    client =
        vertx.createHttpClient(
            clientOptions,
            new PoolOptions()
                .setHttp1MaxSize(
                    config.upstream().connectionsPerLoop(config.listen().eventLoops())));
    HttpServerOptions serverOptions =
        new HttpServerOptions()
            .setHost(config.listen().host())
            .setPort(port)
            .setTcpNoDelay(true)
            // Every write to a client connection happens on its event loop (exchanges never
            // change threads, the ingest endpoint replies from its loop): Vert.x can then skip
            // the cross-thread hand-off and locking around each write.
            .setStrictThreadMode(true)
            .setCompressionSupported(false)
            .setDecompressionSupported(false)
            .setHandle100ContinueAutomatically(true)
            .setMaxHeaderSize(64 << 10)
            .setMaxChunkSize(MAX_CHUNK)
            .setMaxInitialLineLength(64 << 10)
            // HTTP/1.1 only: with cleartext HTTP/2 on, Vert.x sniffs the first bytes of a
            // connection before it exists for the connection handler, so a client that connects
            // and sends nothing escaped the connection cap and the head timeout.
            .setHttp2ClearTextEnabled(false);
    clients = new ClientConnections(vertx, openClients, config, metrics);
    server =
        vertx
            .createHttpServer(serverOptions)
            .connectionHandler(clients::opened)
            .requestHandler(this::handle);
    context =
        new ExchangeContext(
            config.upstream(),
            config.capture(),
            client,
            clients,
            captureMemory,
            sessionKeys,
            metrics,
            handoff);
    return server.listen();
  }

  @Override
  public Future<?> stop() {
    return client.close();
  }

  /** The port this instance listens on. */
  int actualPort() {
    return server.actualPort();
  }

  /**
   * Stops accepting connections; exchanges in flight carry on for at most {@code millis}, idle
   * keep-alive connections are closed.
   */
  Future<Void> stopAccepting(long millis) {
    return server.shutdown(millis, TimeUnit.MILLISECONDS);
  }

  private void handle(HttpServerRequest request) {
    clients.requestStarted(request);
    String framing = RequestFraming.problem(request.version(), request.headers());
    if (framing != null) {
      refuse(request, framing);
      return;
    }
    if (request.path().startsWith(OWN_PREFIX)) {
      if (ingest == null) {
        // The warm-up's listener: it has no endpoints of its own.
        request.response().setStatusCode(404).end();
        return;
      }
      ingest.handle(request);
      return;
    }
    request.pause();
    handoff.started();
    exchanges++; // written on this instance's event loop only
    new Exchange(context, request, System.nanoTime(), System.currentTimeMillis()).begin();
  }

  /**
   * A request whose framing the engine might read differently: 400, and the connection closed, so
   * that no byte after it is read as another request. Counted, never forwarded, never captured.
   */
  private void refuse(HttpServerRequest request, String reason) {
    metrics.refused(reason);
    request
        .response()
        .setStatusCode(400)
        .putHeader(HttpHeaders.CONNECTION, "close")
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
        .putHeader("X-Prefixlog-Error", reason)
        .end("prefixlog proxy: request refused: " + reason.replace('_', ' ') + "\n")
        .onComplete(done -> request.connection().close());
  }

  /** Exchanges this instance (one event loop) has started. */
  long exchanges() {
    return exchanges;
  }
}
