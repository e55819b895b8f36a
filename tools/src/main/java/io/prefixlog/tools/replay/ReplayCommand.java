package io.prefixlog.tools.replay;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.topic.TopicOptions;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * {@code prefixlog replay}: reads the command line into a request of its mode and runs that mode's
 * service: {@link CorpusReplayService} for the corpora (into the raw topic, or through the proxy),
 * {@link CaptureReplayService} for {@code --from-capture}.
 */
public final class ReplayCommand implements Command {
  /**
   * The documented development secret: the default of the stream app and the bridge as well, so
   * that replayed sessions get the keys live capture would give them. Never for production.
   */
  public static final String DEV_SESSION_SECRET = SessionKeyDeriver.DEV_SECRET;

  /** Environment variable holding the session key secret. */
  public static final String SECRET_ENV = CorpusReplayRequest.SECRET_ENV;

  static final String DEFAULT_MODEL = CorpusReplayRequest.DEFAULT_MODEL;
  static final int DEFAULT_INTERLEAVE = CorpusReplayRequest.DEFAULT_INTERLEAVE;
  static final int DEFAULT_CONCURRENCY = CorpusReplayRequest.DEFAULT_CONCURRENCY;
  static final int DEFAULT_CAPTURE_CONCURRENCY = CaptureReplayRequest.DEFAULT_CONCURRENCY;

  static final List<Option> OPTIONS =
      List.of(
          Option.value(
                  "corpus",
                  "PATH",
                  "every *.jsonl under corpora/ of the project",
                  "A corpus file, or a directory whose *.jsonl files (recursively, sorted) are read.")
              .repeatable(),
          Option.value(
              "conversations",
              "N",
              "all",
              "Replay at most N conversations of each file (the first N; with --seed, N at"
                  + " random)."),
          Option.value("turns", "N", "all", "Stop after N events in total."),
          Option.value(
              "interleave",
              "K",
              Integer.toString(DEFAULT_INTERLEAVE),
              "Keep K sessions in flight, sending one turn of each in turn; a session's turns"
                  + " stay in order."),
          Option.value("rate", "R", "0 (unlimited)", "Send at most R events per second."),
          Option.value("model", "NAME", DEFAULT_MODEL, "The model field of every request body."),
          Option.value(
              "secret",
              "SECRET",
              "$" + SECRET_ENV + ", else the development secret " + DEV_SESSION_SECRET,
              "Session key secret (at least 16 bytes); must match the stream app's and the"
                  + " bridge's. Prefer the environment variable: arguments show in ps."),
          TopicOptions.bootstrap(
              "Kafka bootstrap servers (with --from-capture: where the deltas topic is read)."),
          TopicOptions.topicPrefix(
              "Prefix of every topic name (with --from-capture: the requests are rebuilt from"
                  + " <prefix>session.deltas)."),
          Option.value(
              "session-suffix",
              "S",
              "none",
              "Append S to every conversation's id, so its turns make new sessions (the id is the"
                  + " session id: X-Session-ID through the proxy, keyed into session_key): a"
                  + " corpus replayed again beside an earlier replay of it, as up --demo does."),
          Option.flag(
              "no-session-header",
              "Send no session header, as most SDK clients do: the capture then keys each"
                  + " conversation by its start (session_key_source conversation). Through"
                  + " --via-proxy the proxy derives the key; without it, the events carry the key"
                  + " the capture derives for such a client at 127.0.0.1 with"
                  + " PREFIXLOG_CLIENT_ADDR=full."),
          Option.value(
              "seed",
              "N",
              "none (file order, random request ids)",
              "Sample conversations and order sessions at random from this seed, and derive"
                  + " request ids from it, so that a run can be repeated."),
          Option.value(
              "via-proxy",
              "URL",
              "none (produce to Kafka)",
              "Send every turn as a real HTTP POST to <URL>/v1/chat/completions (the capture"
                  + " proxy, e.g. http://127.0.0.1:8088) instead of producing raw events; the proxy"
                  + " captures them. --bootstrap and --topic-prefix are then unused. With"
                  + " --from-capture (required there): the OpenAI-compatible endpoint the captured"
                  + " requests are sent to, a capture proxy or an engine."),
          Option.value(
              "concurrency",
              "N",
              DEFAULT_CONCURRENCY + " (" + DEFAULT_CAPTURE_CONCURRENCY + " with --from-capture)",
              "With --via-proxy: at most N requests in flight (a session's turns stay"
                  + " sequential, so at most --interleave). With --from-capture: at most N"
                  + " requests outstanding, counting those waiting for their session's previous"
                  + " answer; a request finding none free goes out late."),
          Option.value(
              "stream",
              "F",
              "0.5",
              "With --via-proxy: the fraction of requests sent with \"stream\": true and"
                  + " stream_options.include_usage (SSE answers), spread evenly; 0 or 1 for all"
                  + " JSON or all streamed."),
          Option.flag(
              "from-capture",
              "Send the captured requests again instead of the corpora: their bodies rebuilt from"
                  + " <prefix>session.deltas (or --file) and checked, at their captured times, to"
                  + " --via-proxy; then print latency and cached tokens next to the capture's."),
          Option.value(
              "file",
              "PATH",
              "none (read the topic)",
              "With --from-capture: read a kcat -J dump of the deltas topic instead of the"
                  + " topic."),
          Option.value(
              "speed",
              "X",
              "1",
              "With --from-capture: divide the captured gaps between requests by X (2: twice as"
                  + " fast, 0.5: half as fast)."),
          Option.value(
              "sample-sessions",
              "F",
              "1 (every session)",
              "With --from-capture: replay the fraction F of the sessions, chosen by a hash of"
                  + " the session key: a session is replayed whole or not at all, the same ones on"
                  + " every run."),
          Option.flag("progress", "Show the progress bar even when stderr is not a terminal."));

  /** Options of the corpus replay only, refused with --from-capture. */
  private static final List<String> CORPUS_ONLY =
      List.of(
          "corpus",
          "conversations",
          "turns",
          "interleave",
          "rate",
          "model",
          "secret",
          "session-suffix",
          "no-session-header",
          "seed",
          "stream");

  /** Options of the capture replay only, refused without --from-capture. */
  private static final List<String> CAPTURE_ONLY = List.of("file", "speed", "sample-sessions");

  private static final String DESCRIPTION =
      """
      Replays the conversation corpora into the raw topic (<prefix>requests.raw): one raw request
      event per assistant turn, whose body is the chat request that turn answered (every message
      before it), keyed by session_key. The simulated client sends the conversation id as
      X-Session-ID, so session_key is derived from that header with the session key secret, as
      the capture does; with --no-session-header it sends none, and session_key is derived from
      the start of each conversation, as the capture does for SDK clients that send no session
      signal. Events carry no response. The topic must exist (the stream app creates
      it). With --via-proxy, every turn is instead a real HTTP request to the capture proxy, which
      captures it (and the engine's answer) as such an event.

      With --from-capture, the captured traffic is sent again instead: every request rebuilt from
      <prefix>session.deltas (read_committed, to the end offsets at start) or a kcat -J dump of
      it, and checked against its body_sha256 as reconstruct does, goes to --via-proxy with its
      captured path, body and session headers, at its captured arrival time (divided by --speed).
      A turn that was sent after its session's previous answer waits for that answer again.
      Erased sessions are never rebuilt, so never sent. Then latency (p50/p90/p99) and cached
      tokens (the engine's usage) are printed per request class and overall, next to the
      capture's own, with the cached-token rate's difference in points. Exit code 0 when every
      event was acknowledged (every request answered 2xx), 1 when any send failed, a captured
      turn failed its check, or Kafka or the proxy cannot be reached, 2 for a bad command line.
      """;

  private final Terminal terminal;
  private final EventSink.Factory sinks;
  private final Supplier<Optional<Path>> home;
  private final LongSupplier clock;

  public ReplayCommand(Terminal terminal) {
    this(terminal, KafkaEventSink::open, ProjectHome::find, System::currentTimeMillis);
  }

  ReplayCommand(
      Terminal terminal,
      EventSink.Factory sinks,
      Supplier<Optional<Path>> home,
      LongSupplier clock) {
    this.terminal = terminal;
    this.sinks = sinks;
    this.home = home;
    this.clock = clock;
  }

  @Override
  public Spec spec() {
    return new Spec(
        "replay",
        "Send the corpora's chat requests to the raw topic, or through the capture proxy.",
        DESCRIPTION,
        OPTIONS);
  }

  @Override
  public int run(String[] args) {
    return runService(args, terminal, Settings::from, request -> serve(request).outcome());
  }

  private ReplayResult serve(ReplayRequest request) {
    return request instanceof CaptureReplayRequest capture
        ? new CaptureReplayService(terminal).run(capture)
        : new CorpusReplayService(terminal, sinks, home, clock).run((CorpusReplayRequest) request);
  }

  /** The command line read into a request of its mode. */
  static final class Settings {
    private Settings() {}

    static ReplayRequest from(CommandLine line, Map<String, String> env) throws UsageException {
      boolean fromCapture = line.has("from-capture");
      for (String name : fromCapture ? CORPUS_ONLY : CAPTURE_ONLY) {
        if (line.has(name)) {
          throw new UsageException(
              fromCapture
                  ? "--" + name + " replays the corpora; --from-capture replays the capture"
                  : "--" + name + " needs --from-capture");
        }
      }
      if (fromCapture) {
        return fromCapture(line);
      }
      CorpusReplayRequest.Builder s = CorpusReplayRequest.builder();
      s.corpus = line.values("corpus");
      s.maxConversations = line.longValue("conversations", Long.MAX_VALUE, 1);
      s.maxTurns = line.longValue("turns", Long.MAX_VALUE, 1);
      s.interleave = (int) line.longValue("interleave", DEFAULT_INTERLEAVE, 1);
      if (s.interleave > 100_000) {
        throw new UsageException("--interleave must be at most 100000, got " + s.interleave);
      }
      s.rate = line.doubleValue("rate", 0, 0);
      s.model = line.string("model", DEFAULT_MODEL);
      s.sessionSuffix = line.string("session-suffix", "");
      s.sessionHeader = !line.has("no-session-header");
      if (!s.sessionHeader && line.has("session-suffix")) {
        throw new UsageException(
            "--session-suffix renames the sessions' ids, and --no-session-header sends none");
      }
      if (s.model.isBlank()) {
        throw new UsageException("--model must not be empty");
      }
      String fromEnv = env.get(SECRET_ENV);
      s.secretIsDefault = false;
      if (line.has("secret")) {
        s.secret = line.value("secret").orElseThrow();
      } else if (fromEnv != null && !fromEnv.isEmpty()) {
        s.secret = fromEnv;
      } else {
        s.secret = DEV_SESSION_SECRET;
        s.secretIsDefault = true;
      }
      int secretBytes = s.secret.getBytes(StandardCharsets.UTF_8).length;
      if (secretBytes < 16) {
        String source = line.has("secret") ? "--secret" : SECRET_ENV;
        throw new UsageException(source + " must be at least 16 bytes, got " + secretBytes);
      }
      s.bootstrap = TopicOptions.bootstrap(line);
      s.topicPrefix = TopicOptions.topicPrefix(line);
      if (line.has("seed")) {
        s.seed = line.longValue("seed", 0, Long.MIN_VALUE);
      }
      s.progress = line.has("progress");
      if (line.has("via-proxy")) {
        s.viaProxy = proxyUrl(line.value("via-proxy").orElseThrow());
      }
      s.concurrency = (int) line.longValue("concurrency", DEFAULT_CONCURRENCY, 1);
      if (s.concurrency > 10_000) {
        throw new UsageException("--concurrency must be at most 10000, got " + s.concurrency);
      }
      s.streamFraction = line.doubleValue("stream", 0.5, 0);
      if (s.streamFraction > 1) {
        throw new UsageException("--stream must be between 0 and 1, got " + s.streamFraction);
      }
      return s.build();
    }

    private static CaptureReplayRequest fromCapture(CommandLine line) throws UsageException {
      CaptureReplayRequest.Builder s = CaptureReplayRequest.builder();
      if (!line.has("via-proxy")) {
        throw new UsageException(
            "--from-capture needs --via-proxy URL: the endpoint the captured requests go to, e.g."
                + " http://127.0.0.1:8088");
      }
      s.viaProxy = proxyUrl(line.value("via-proxy").orElseThrow());
      if (line.has("file") && TopicOptions.given(line)) {
        throw new UsageException(
            "--file reads a dump, --bootstrap and --topic-prefix the topic: give one or the other");
      }
      if (line.has("file")) {
        s.file = Path.of(line.value("file").orElseThrow());
        if (!Files.isRegularFile(s.file)) {
          throw new UsageException("--file " + s.file + ": no such file");
        }
      }
      s.bootstrap = TopicOptions.bootstrap(line);
      s.topicPrefix = TopicOptions.topicPrefix(line);
      s.speed = line.doubleValue("speed", 1, 0);
      if (s.speed == 0) {
        throw new UsageException("--speed must be more than 0, got " + s.speed);
      }
      s.sampleSessions = line.doubleValue("sample-sessions", 1, 0);
      if (s.sampleSessions == 0 || s.sampleSessions > 1) {
        throw new UsageException(
            "--sample-sessions must be more than 0 and at most 1, got " + s.sampleSessions);
      }
      s.concurrency = (int) line.longValue("concurrency", DEFAULT_CAPTURE_CONCURRENCY, 1);
      if (s.concurrency > 10_000) {
        throw new UsageException("--concurrency must be at most 10000, got " + s.concurrency);
      }
      s.progress = line.has("progress");
      return s.build();
    }

    private static URI proxyUrl(String value) throws UsageException {
      URI uri;
      try {
        uri = new URI(value);
      } catch (URISyntaxException e) {
        throw new UsageException(
            "--via-proxy must be a URL like http://127.0.0.1:8088, got " + value);
      }
      if (!"http".equals(uri.getScheme()) || uri.getHost() == null) {
        throw new UsageException(
            "--via-proxy must be an http:// URL with a host, like http://127.0.0.1:8088, got "
                + value);
      }
      // The API paths are resolved against the base without its own path.
      return URI.create("http://" + uri.getRawAuthority() + "/");
    }
  }
}
