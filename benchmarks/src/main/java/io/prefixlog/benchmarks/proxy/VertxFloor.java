package io.prefixlog.benchmarks.proxy;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reference for ProxyBenchmark, not a product: the least a reverse proxy on Vert.x's HTTP server
 * and pooled client does for the benchmark's exchange, with the transport and options prefixlog's
 * proxy uses (epoll, TCP_NODELAY, keep-alive, strict thread mode, one verticle per event loop). No
 * capture, no metrics, no header policy: between {@link NettyFloor} and prefixlog it measures what
 * Vert.x's machinery costs per request, and prefixlog's figure less this one what capture costs.
 */
final class VertxFloor implements AutoCloseable {
  private final Vertx vertx;
  private final int port;

  private VertxFloor(Vertx vertx, int port) {
    this.vertx = vertx;
    this.port = port;
  }

  static VertxFloor start(URI upstream, int eventLoops) throws Exception {
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(eventLoops)
                .setWorkerPoolSize(2)
                .setPreferNativeTransport(true));
    AtomicInteger port = new AtomicInteger();
    vertx
        .deployVerticle(
            () -> new Forwarder(upstream, port), new DeploymentOptions().setInstances(eventLoops))
        .toCompletionStage()
        .toCompletableFuture()
        .get(30, TimeUnit.SECONDS);
    return new VertxFloor(vertx, port.get());
  }

  int port() {
    return port;
  }

  @Override
  public void close() {
    try {
      vertx.close().await(30, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Vert.x did not close within 30 s", e);
    }
  }

  /** One per event loop: the server's requests go out through this loop's client pool. */
  private static final class Forwarder extends VerticleBase {
    private final URI upstream;
    private final AtomicInteger port;
    private HttpClientAgent client;

    Forwarder(URI upstream, AtomicInteger port) {
      this.upstream = upstream;
      this.port = port;
    }

    @Override
    public Future<?> start() {
      client =
          vertx.createHttpClient(
              new HttpClientOptions().setTcpNoDelay(true).setKeepAlive(true),
              new PoolOptions().setHttp1MaxSize(64));
      // Port -1: one random port shared by every instance (Vert.x's convention; 0 would give each
      // instance a port of its own).
      HttpServer server =
          vertx
              .createHttpServer(
                  new HttpServerOptions()
                      .setHost("127.0.0.1")
                      .setPort(-1)
                      .setTcpNoDelay(true)
                      .setStrictThreadMode(true)
                      .setHttp2ClearTextEnabled(false))
              .requestHandler(this::forward);
      return server.listen().onSuccess(s -> port.set(s.actualPort()));
    }

    private void forward(HttpServerRequest request) {
      request
          .body()
          .compose(
              body ->
                  client
                      .request(
                          new RequestOptions()
                              .setMethod(request.method())
                              .setHost(upstream.getHost())
                              .setPort(upstream.getPort())
                              .setURI(request.uri())
                              .setHeaders(request.headers().remove(HttpHeaders.CONNECTION)))
                      .compose(out -> out.send(body)))
          .compose(
              in -> {
                request.response().setStatusCode(in.statusCode());
                request.response().headers().setAll(in.headers());
                return in.body();
              })
          .onSuccess(request.response()::end)
          .onFailure(e -> request.response().setStatusCode(502).end());
    }
  }
}
