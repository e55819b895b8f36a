package io.prefixlog.tools.up;

import io.prefixlog.demo.DemoUpstream;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.Map;
import java.util.Optional;

/**
 * The engine side of {@code up}, started after the stream app and before the proxy: with {@code
 * --demo} and no {@code --upstream} the bundled OpenAI-compatible demo engine ({@link
 * DemoUpstream}), whose URL the proxy is given; with {@code --kv-endpoint}, or {@code --demo} and
 * the block index on, the KV-event subscriber ({@link KvDemo}, which under {@code --demo} runs a
 * demo KV engine too). Stopped after the proxy, which drains its exchanges with the engine first.
 */
final class DemoPart implements Part {
  /**
   * What to run.
   *
   * @param engine the bundled demo engine, for the proxy to forward to
   * @param kv the KV-event subscriber
   * @param kvEndpoints {@code --kv-endpoint}, or "" for the demo KV engine
   * @param kvReplays {@code --kv-replay}, or ""
   */
  record Options(boolean engine, boolean kv, String kvEndpoints, String kvReplays) {}

  private final Parts parts;
  private final Optional<URI> engineUrl;
  private final Optional<KvDemo> kv;

  private DemoPart(Parts parts, Optional<URI> engineUrl, Optional<KvDemo> kv) {
    this.parts = parts;
    this.engineUrl = engineUrl;
    this.kv = kv;
  }

  /**
   * Starts the demo engine, then the KV subscriber, as {@code options} ask; when the subscriber
   * does not start, stops the engine again.
   *
   * @param config the stream app's: the topics the subscriber publishes to
   * @param bootstrap the broker's bootstrap servers
   * @param env the environment: {@code PREFIXLOG_KV_*} settings apply
   */
  static DemoPart start(
      Options options, StreamAppConfig config, String bootstrap, Map<String, String> env)
      throws IOException, InterruptedException {
    Parts parts = new Parts();
    try {
      Optional<URI> engineUrl = Optional.empty();
      if (options.engine()) {
        DemoUpstream engine = DemoUpstream.start(DemoUpstream.Options.defaults());
        parts.push(engine::close);
        engineUrl = Optional.of(URI.create(engine.baseUrl()));
      }
      Optional<KvDemo> kv = Optional.empty();
      if (options.kv()) {
        kv =
            Optional.of(
                parts.start(
                    () ->
                        KvDemo.start(
                            options.kvEndpoints(), options.kvReplays(), config, bootstrap, env)));
      }
      return new DemoPart(parts, engineUrl, kv);
    } catch (Throwable e) {
      parts.closeAfter(e);
      throw e;
    }
  }

  /** The bundled demo engine's base URL, when it runs. */
  Optional<URI> engineUrl() {
    return engineUrl;
  }

  /** The line {@code up} prints about the KV events, or "" when no subscriber runs. */
  String describeKv() {
    return kv.map(KvDemo::describe).orElse("");
  }

  /**
   * With the demo KV engine: waits for its batches to reach the block index and prints the check.
   *
   * @return {@link Command#OK} when the index holds exactly the engine's blocks, or nothing was to
   *     check
   */
  int reportKv(PrintStream out) throws InterruptedException {
    return kv.isEmpty() ? Command.OK : kv.get().report(out);
  }

  /** The KV subscriber (sending what is queued), then the demo engine. Idempotent. */
  @Override
  public void close() {
    parts.close();
  }
}
