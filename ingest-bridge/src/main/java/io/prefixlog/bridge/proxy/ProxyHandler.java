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

/**
 * One event loop's share of the proxy: its listener (all instances share the port) and its own
 * upstream connection pool, so that an exchange never changes threads. Each exchange sees the
 * loop's {@link ExchangeContext}; its end goes to the deployment's {@link Handoff} (the publisher's
 * queue; the warm-up's discarding sink); requests under {@link #OWN_PREFIX} go to the ingest
 * endpoint (none in the warm-up: 404).
 *
 * <p>TCP_NODELAY on both sides: a head and a body written as two segments must never wait for a
 * delayed ACK (a 40 ms stall per exchange).
 */
final class ProxyHandler extends VerticleBase {
  /** Paths under this prefix are the proxy's own and never forwarded. */
  static final String OWN_PREFIX = "/prefixlog/";

  /** Body pieces of up to 64 KiB (Netty's default is 8 KiB): a 20 KB body is one write. */
  private static final int MAX_CHUNK = 64 << 10;

  private final ProxyComponents components;
  private final Handoff handoff;
  private final IngestHandler ingest;
  private final int port;
  private HttpClientAgent client;
  private HttpServer server;
  private ExchangeContext context;
  private volatile long exchanges;

  /**
   * @param ingest the proxy's own endpoints, or null for none
   * @param port the port to listen on, -1 for the deployment's one free port
   */
  ProxyHandler(ProxyComponents components, Handoff handoff, IngestHandler ingest, int port) {
    this.components = components;
    this.handoff = handoff;
    this.ingest = ingest;
    this.port = port;
  }

  @Override
  public Future<?> start() {
    ProxyConfig config = components.config();
    client = vertx.createHttpClient(clientOptions(config.upstream()), poolOptions(config));
    ClientConnections clients =
        new ClientConnections(
            vertx, components.openClients(), config.clientLimits(), components.metrics());
    server =
        vertx
            .createHttpServer(serverOptions(config.listen()))
            .connectionHandler(clients::opened)
            .requestHandler(this::handle);
    context = components.exchangeContext(client, clients, handoff);
    return server.listen();
  }

  private static HttpClientOptions clientOptions(UpstreamConfig upstream) {
    return new HttpClientOptions()
        .setTcpNoDelay(true)
        .setKeepAlive(true)
        .setKeepAliveTimeout((int) Math.max(1, upstream.keepAlive().toSeconds()))
        .setPipelining(false)
        .setDecompressionSupported(false)
        .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, upstream.connectTimeout().toMillis()))
        .setMaxHeaderSize(64 << 10)
        .setMaxChunkSize(MAX_CHUNK)
        // Bounds what a paused stream holds (UpstreamConfig.RECEIVE_BUFFER).
        .setReceiveBufferSize(upstream.receiveBuffer())
        .setSsl(upstream.tls());
  }

  /** This loop's share of the engine connections. */
  private static PoolOptions poolOptions(ProxyConfig config) {
    return new PoolOptions()
        .setHttp1MaxSize(config.upstream().connectionsPerLoop(config.listen().eventLoops()));
  }

  private HttpServerOptions serverOptions(ListenConfig listen) {
    return new HttpServerOptions()
        .setHost(listen.host())
        .setPort(port)
        .setTcpNoDelay(true)
        // Every write to a client connection happens on its event loop (exchanges never change
        // threads, the ingest endpoint replies from its loop): Vert.x can then skip the
        // cross-thread hand-off and locking around each write.
        .setStrictThreadMode(true)
        .setCompressionSupported(false)
        .setDecompressionSupported(false)
        .setHandle100ContinueAutomatically(true)
        .setMaxHeaderSize(64 << 10)
        .setMaxChunkSize(MAX_CHUNK)
        .setMaxInitialLineLength(64 << 10)
        // HTTP/1.1 only: with cleartext HTTP/2 on, Vert.x sniffs the first bytes of a connection
        // before it exists for the connection handler, so a client that connects and sends nothing
        // escaped the connection cap and the head timeout.
        .setHttp2ClearTextEnabled(false);
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
    context.clients().requestStarted(request);
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
    context.metrics().refused(reason);
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
