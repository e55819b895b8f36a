package io.prefixlog.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prefixlog.core.config.Settings;
import io.prefixlog.core.service.ServiceMain;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.zeromq.ZContext;

/**
 * The demo engine as a process of its own: an OpenAI-compatible HTTP API ({@link DemoUpstream}) and
 * vLLM's KV-event endpoints ({@link DemoKvEngine}: ZMQ PUB and replay ROUTER), standing in for vLLM
 * where there is no GPU. docker-compose runs it under the {@code demo} profile (the same image as
 * the bridge, another main class), and the compose smoke test sends its traffic there.
 *
 * <p>A status endpoint tells a test what the engine holds: {@code GET /kv} answers {@code
 * published=<true|false> batches=<n> events=<n>} on its first line, then, once every batch is
 * published, the resident block hashes (16 hex digits), one per line: what the block index must
 * equal.
 *
 * <p>Settings ({@code PREFIXLOG_DEMO_*}): {@code HOST} (127.0.0.1), {@code PORT} (8000, the HTTP
 * API), {@code KV_PORT} (5557), {@code KV_REPLAY_PORT} (5558), {@code KV_TOPIC} ({@code kv}, as
 * compose's vLLM publishes), {@code KV_BATCHES} (400 scheduler steps, published once the first
 * subscriber joins), {@code STATUS_PORT} (8001), {@code RESPONSE_BYTES} (512), {@code DELAY} (0).
 */
public final class DemoEngineMain {
  private DemoEngineMain() {}

  public static void main(String[] args) {
    System.exit(
        ServiceMain.run(
            "DemoEngineMain", "demo-engine", args, System.getenv(), DemoEngineMain::configure));
  }

  static ServiceMain.Service configure(Settings s) {
    String host = s.string("PREFIXLOG_DEMO_HOST", "127.0.0.1");
    DemoUpstream.Options http =
        DemoUpstream.Options.defaults()
            .withHost(host)
            .withPort(s.integer("PREFIXLOG_DEMO_PORT", 8000, 0, 65535))
            .withResponseBytes(s.integer("PREFIXLOG_DEMO_RESPONSE_BYTES", 512, 1, 16 << 20))
            .withDelay(s.duration("PREFIXLOG_DEMO_DELAY", Duration.ZERO));
    return new Engine(
        new EngineConfig(
            http,
            host,
            s.integer("PREFIXLOG_DEMO_KV_PORT", 5557, 0, 65535),
            s.integer("PREFIXLOG_DEMO_KV_REPLAY_PORT", 5558, 0, 65535),
            s.integer("PREFIXLOG_DEMO_KV_BATCHES", 400, 0, 1_000_000),
            s.string("PREFIXLOG_DEMO_KV_TOPIC", "kv"),
            s.integer("PREFIXLOG_DEMO_STATUS_PORT", 8001, 0, 65535)));
  }

  /** What the engine was configured with, read once from the environment. */
  private record EngineConfig(
      DemoUpstream.Options http,
      String host,
      int kvPort,
      int replayPort,
      int batches,
      String topic,
      int statusPort) {}

  /** Starts the HTTP API, the KV endpoints and the status endpoint; closes them the other way. */
  private static final class Engine implements ServiceMain.Service {
    private final EngineConfig config;
    private ZContext context;
    private DemoKvEngine kv;
    private DemoUpstream upstream;
    private HttpServer status;

    Engine(EngineConfig config) {
      this.config = config;
    }

    @Override
    public synchronized void start() throws IOException {
      context = new ZContext();
      // Zero: an engine waits for its subscriber as long as it runs (the bridge may come later).
      kv =
          new DemoKvEngine(
              context,
              config.batches(),
              config.topic(),
              config.host(),
              config.kvPort(),
              config.replayPort(),
              Duration.ZERO);
      kv.start();
      upstream = DemoUpstream.start(config.http());
      status = HttpServer.create(new InetSocketAddress(config.host(), config.statusPort()), 16);
      status.createContext("/kv", this::kvStatus);
      status.start();
    }

    private void kvStatus(HttpExchange exchange) throws IOException {
      StringBuilder body = new StringBuilder();
      boolean published = kv.published();
      body.append("published=")
          .append(published)
          .append(" batches=")
          .append(kv.batchesPublished())
          .append(" events=")
          .append(kv.eventsPublished())
          .append('\n');
      if (published) {
        kv.residentHashes().forEach(h -> body.append(h).append('\n'));
      }
      byte[] bytes = body.toString().getBytes(StandardCharsets.US_ASCII);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=us-ascii");
      exchange.sendResponseHeaders(200, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }

    @Override
    public synchronized void close() {
      if (status != null) {
        status.stop(0);
      }
      if (upstream != null) {
        upstream.close();
      }
      if (kv != null) {
        kv.close();
      }
      if (context != null) {
        context.close();
      }
    }
  }
}
