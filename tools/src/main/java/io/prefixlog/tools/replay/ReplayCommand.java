package io.prefixlog.tools.replay;

import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.cli.CommandLine;
import io.prefixlog.tools.cli.Option;
import io.prefixlog.tools.cli.Progress;
import io.prefixlog.tools.cli.ProjectHome;
import io.prefixlog.tools.cli.Terminal;
import io.prefixlog.tools.cli.Units;
import io.prefixlog.tools.cli.UsageException;
import io.prefixlog.tools.cli.Version;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.reconstruct.CaptureInput;
import io.prefixlog.tools.replay.EventSink.SinkException;
import io.prefixlog.tools.replay.InterleavePlan.Step;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code prefixlog replay}: produces one raw request event per assistant turn of the corpora into
 * the raw topic, as the capture would for a client that sends each conversation's id as {@code
 * X-Session-ID}. Several sessions are in flight at once (round robin), each session's turns in
 * order; every send's result is awaited and any failure fails the run.
 */
public final class ReplayCommand implements Command {
  /**
   * The documented development secret: the default of the stream app and the bridge as well, so
   * that replayed sessions get the keys live capture would give them. Never for production.
   */
  public static final String DEV_SESSION_SECRET = SessionKeyDeriver.DEV_SECRET;

  /** Environment variable holding the session key secret. */
  public static final String SECRET_ENV = "PREFIXLOG_SESSION_SECRET";

  static final String DEFAULT_BOOTSTRAP = CommonKeys.DEFAULT_BOOTSTRAP;
  static final String DEFAULT_MODEL = "prefixlog-demo";
  static final int DEFAULT_INTERLEAVE = 8;
  static final int DEFAULT_CONCURRENCY = 8;
  static final int DEFAULT_CAPTURE_CONCURRENCY = 64;

  private static final Logger LOGGER = LoggerFactory.getLogger(ReplayCommand.class);
  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);

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
          Option.value(
              "bootstrap",
              "HOST:PORT",
              DEFAULT_BOOTSTRAP,
              "Kafka bootstrap servers (with --from-capture: where the deltas topic is read)."),
          Option.value(
              "topic-prefix",
              "PREFIX",
              "\"" + Topics.DEFAULT_PREFIX + "\"",
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
    CommandLine.Invocation<Settings> invocation =
        invoke(args, terminal, line -> Settings.from(line, terminal.env()));
    if (!invocation.proceed()) {
      return invocation.exitCode();
    }
    Settings settings = invocation.value();
    if (settings.fromCapture) {
      return fromCapture(settings);
    }
    Selection selection;
    try {
      selection = select(settings);
    } catch (UsageException e) {
      terminal.err().println("prefixlog replay: " + e.getMessage());
      return USAGE;
    } catch (RuntimeException e) {
      terminal.err().println("prefixlog replay: " + e.getMessage());
      return FAILED;
    }
    if (settings.secretIsDefault && settings.viaProxy == null) {
      terminal
          .err()
          .println(
              "prefixlog replay: warning: using the development session secret; set "
                  + SECRET_ENV
                  + " (or --secret) to the stream app's and bridge's secret outside development");
    }
    int[] turnCounts = selection.sessions.stream().mapToInt(Conversation::requestCount).toArray();
    List<Step> plan = InterleavePlan.of(turnCounts, settings.interleave, settings.maxTurns);
    if (settings.viaProxy != null) {
      return viaProxy(settings, selection, plan);
    }
    String topic = Topics.withPrefix(settings.topicPrefix).requestsRaw().name();
    try (EventSink sink = sinks.open(settings.bootstrap, topic)) {
      return send(settings, selection, plan, sink, topic);
    } catch (SinkException e) {
      terminal.err().println("prefixlog replay: " + e.getMessage());
      return FAILED;
    }
  }

  private int fromCapture(Settings settings) {
    CaptureInput input =
        settings.file != null
            ? CaptureInput.dump(settings.file)
            : CaptureInput.topic(settings.bootstrap, settings.topicPrefix);
    CapturedRequests captured =
        new CapturedRequests(
            settings.sampleSessions >= 1
                ? SessionSample.ALL
                : new SessionSample(settings.sampleSessions));
    CaptureInput.Rebuilt rebuilt;
    try {
      rebuilt = input.rebuild(captured, terminal, settings.progress);
    } catch (CaptureInput.InputException e) {
      terminal.err().println("prefixlog replay: " + e.getMessage());
      return FAILED;
    }
    CaptureSummary summary = new CaptureSummary(terminal.out(), settings.viaProxy);
    if (!summary.input(rebuilt, captured, settings.sampleSessions)) {
      terminal
          .err()
          .println(
              "prefixlog replay: some captured turns did not rebuild, nothing was sent; run"
                  + " reconstruct on the same input to see why");
      return FAILED;
    }
    ReplayPlan plan = ReplayPlan.of(captured.ordered(), settings.speed);
    if (plan.steps().isEmpty()) {
      terminal.err().println("prefixlog replay: the capture has no request to replay");
      return FAILED;
    }
    CaptureReplay replay =
        new CaptureReplay(
            settings.viaProxy,
            settings.concurrency,
            CapturedRequests.REPLAY_AGENT + "/" + Version.current(),
            HexFormat.of().toHexDigits(new SecureRandom().nextInt()));
    Interrupt interrupt = Interrupt.install();
    try {
      CaptureReplay.Outcome outcome;
      try (Progress progress =
          Progress.counting(
              terminal, settings.progress, "replay", plan.steps().size(), "requests")) {
        outcome = replay.run(plan, progress, interrupt::requested);
      }
      summary.replay(plan, outcome, settings.concurrency);
      ReplayComparison.of(plan, outcome).print(terminal.out());
      if (outcome.failed() > 0) {
        terminal
            .err()
            .println(
                "prefixlog replay: "
                    + Units.count(outcome.failed())
                    + " of "
                    + Units.count(outcome.sent())
                    + " requests failed; first failure: "
                    + outcome.firstFailure());
        return FAILED;
      }
      if (interrupt.requested()) {
        terminal
            .err()
            .println(
                "prefixlog replay: interrupted after " + Units.count(outcome.sent()) + " requests");
        return FAILED;
      }
      return OK;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return FAILED;
    } finally {
      terminal.out().flush();
      interrupt.done();
    }
  }

  private Selection select(Settings settings) throws UsageException {
    List<Path> files = CorpusSources.resolve(settings.corpus, home.get());
    Random random = settings.seed == null ? null : new Random(settings.seed);
    List<Conversation> sessions = new ArrayList<>();
    for (Path file : files) {
      List<Conversation> conversations = new ArrayList<>(CorpusFile.read(file));
      conversations.removeIf(c -> c.requestCount() == 0);
      if (random != null) {
        Collections.shuffle(conversations, random);
      }
      int take = (int) Math.min(conversations.size(), settings.maxConversations);
      for (Conversation conversation : conversations.subList(0, take)) {
        sessions.add(conversation.withSessionSuffix(settings.sessionSuffix));
      }
    }
    if (random != null) {
      Collections.shuffle(sessions, random);
    }
    if (sessions.isEmpty()) {
      throw new UsageException("the corpus has no conversation with an assistant turn: " + files);
    }
    return new Selection(sessions, files.size(), random);
  }

  /** The sessions to replay, how many files they came from, and the seeded randomness if any. */
  private record Selection(List<Conversation> sessions, int files, Random random) {}

  private Turns turns(Settings settings, Selection selection, List<Step> plan) {
    ChatRequests renderer = new ChatRequests(settings.model, ChatRequests.DEFAULT_SYSTEM_PROMPT);
    return new Turns(selection.sessions, plan, renderer, selection.random);
  }

  private int viaProxy(Settings settings, Selection selection, List<Step> plan) {
    ProxyReplay replay =
        new ProxyReplay(
            terminal,
            settings.viaProxy,
            settings.concurrency,
            settings.streamFraction,
            "prefixlog-replay/" + Version.current(),
            settings.sessionHeader,
            plan.size());
    Turns turns = turns(settings, selection, plan);
    long started = System.nanoTime();
    Interrupt interrupt = Interrupt.install();
    try {
      ProxyReplay.Outcome outcome;
      try (Progress progress =
          Progress.counting(terminal, settings.progress, "replay", plan.size(), "requests")) {
        outcome = replay.run(turns, progress, settings.rate, interrupt::requested);
      }
      replay.printSummary(outcome, selection.files, System.nanoTime() - started, settings.rate);
      if (outcome.failed() > 0) {
        terminal
            .err()
            .println(
                "prefixlog replay: "
                    + Units.count(outcome.failed())
                    + " of "
                    + Units.count(outcome.sent())
                    + " requests failed; first failure: "
                    + replay.firstFailure());
        return FAILED;
      }
      if (interrupt.requested()) {
        terminal
            .err()
            .println(
                "prefixlog replay: interrupted after " + Units.count(outcome.sent()) + " requests");
        return FAILED;
      }
      return OK;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return FAILED;
    } finally {
      terminal.out().flush();
      interrupt.done();
    }
  }

  private int send(
      Settings settings, Selection selection, List<Step> plan, EventSink sink, String topic) {
    ReplayEvents events =
        new ReplayEvents(settings.secret, Version.current(), settings.sessionHeader);
    Turns turns = turns(settings, selection, plan);
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<Exception> firstFailure = new AtomicReference<>();
    long bodyBytes = 0;
    long sent = 0;
    long started = System.nanoTime();
    Interrupt interrupt = Interrupt.install();
    try {
      try (Progress progress =
          Progress.counting(terminal, settings.progress, "replay", plan.size(), "events")) {
        for (Turns.Turn turn : turns) {
          if (interrupt.requested()) {
            break;
          }
          pace(settings.rate, started, sent);
          ChatRequest request = turn.request();
          SessionKey key = events.sessionKey(request);
          RawRequestEvent event = events.event(request, key, turn.requestId(), clock.getAsLong());
          sink.send(
              key.key(),
              SERDE.toBytes(event),
              e -> {
                if (e == null) {
                  acknowledged.incrementAndGet();
                } else {
                  failed.incrementAndGet();
                  firstFailure.compareAndSet(null, e);
                  LOGGER.debug(
                      "send failed sessionKey={} requestId={}",
                      event.sessionKey(),
                      event.requestId(),
                      e);
                }
              });
          sent++;
          bodyBytes += request.body().length;
          progress.update(sent);
        }
        sink.flush();
      }
      long elapsed = System.nanoTime() - started;
      long sessionCount = plan.stream().limit(sent).map(Step::session).distinct().count();
      printSummary(
          settings,
          selection.files,
          topic,
          sent,
          sessionCount,
          bodyBytes,
          elapsed,
          acknowledged.get(),
          failed.get());
      if (failed.get() > 0 || acknowledged.get() != sent) {
        Exception first = firstFailure.get();
        terminal
            .err()
            .println(
                "prefixlog replay: "
                    + Units.count(sent - acknowledged.get())
                    + " of "
                    + Units.count(sent)
                    + " events were not acknowledged"
                    + (first == null ? "" : "; first failure: " + first));
        return FAILED;
      }
      if (interrupt.requested()) {
        terminal
            .err()
            .println("prefixlog replay: interrupted after " + Units.count(sent) + " events");
        return FAILED;
      }
      return OK;
    } finally {
      terminal.out().flush();
      interrupt.done();
    }
  }

  private void printSummary(
      Settings settings,
      int files,
      String topic,
      long sent,
      long sessionCount,
      long bodyBytes,
      long elapsedNanos,
      long acknowledged,
      long failed) {
    double seconds = Math.max(elapsedNanos, 1) / 1e9;
    terminal
        .out()
        .printf(
            Locale.ROOT,
            "replay: %s events from %s conversations (%d corpus file%s) to %s at %s%n"
                + "  bodies %s, %s, %s events/s, interleave %d, rate %s%n"
                + "  acknowledged %s, failed %s%n",
            Units.count(sent),
            Units.count(sessionCount),
            files,
            files == 1 ? "" : "s",
            topic,
            settings.bootstrap,
            Units.bytes(bodyBytes),
            Units.seconds(elapsedNanos),
            Units.count(Math.round(sent / seconds)),
            settings.interleave,
            settings.rate == 0
                ? "unlimited"
                : (settings.rate == Math.rint(settings.rate)
                        ? Long.toString((long) settings.rate)
                        : Double.toString(settings.rate))
                    + "/s",
            Units.count(acknowledged),
            Units.count(failed));
  }

  static void pace(double rate, long startedNanos, long sent) {
    if (rate <= 0) {
      return;
    }
    long due = startedNanos + (long) (sent * 1e9 / rate);
    long wait;
    while ((wait = due - System.nanoTime()) > 0) {
      LockSupport.parkNanos(wait);
    }
  }

  /** The validated command line. */
  static final class Settings {
    List<String> corpus;
    long maxConversations;
    long maxTurns;
    int interleave;
    double rate;
    String model;
    String sessionSuffix;
    boolean sessionHeader;
    String secret;
    boolean secretIsDefault;
    String bootstrap;
    String topicPrefix;
    Long seed;
    boolean progress;
    URI viaProxy;
    int concurrency;
    double streamFraction;
    boolean fromCapture;
    Path file;
    double speed;
    double sampleSessions;

    static Settings from(CommandLine line, Map<String, String> env) throws UsageException {
      Settings s = new Settings();
      s.fromCapture = line.has("from-capture");
      for (String name : s.fromCapture ? CORPUS_ONLY : CAPTURE_ONLY) {
        if (line.has(name)) {
          throw new UsageException(
              s.fromCapture
                  ? "--" + name + " replays the corpora; --from-capture replays the capture"
                  : "--" + name + " needs --from-capture");
        }
      }
      if (s.fromCapture) {
        return fromCapture(line, s);
      }
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
      s.bootstrap = line.hostPort("bootstrap", DEFAULT_BOOTSTRAP);
      s.topicPrefix = line.string("topic-prefix", Topics.DEFAULT_PREFIX);
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
      return s;
    }

    private static Settings fromCapture(CommandLine line, Settings s) throws UsageException {
      if (!line.has("via-proxy")) {
        throw new UsageException(
            "--from-capture needs --via-proxy URL: the endpoint the captured requests go to, e.g."
                + " http://127.0.0.1:8088");
      }
      s.viaProxy = proxyUrl(line.value("via-proxy").orElseThrow());
      if (line.has("file") && (line.has("bootstrap") || line.has("topic-prefix"))) {
        throw new UsageException(
            "--file reads a dump, --bootstrap and --topic-prefix the topic: give one or the other");
      }
      if (line.has("file")) {
        s.file = Path.of(line.value("file").orElseThrow());
        if (!Files.isRegularFile(s.file)) {
          throw new UsageException("--file " + s.file + ": no such file");
        }
      }
      s.bootstrap = line.hostPort("bootstrap", DEFAULT_BOOTSTRAP);
      s.topicPrefix = line.string("topic-prefix", Topics.DEFAULT_PREFIX);
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
      return s;
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

  /**
   * Ctrl-C during a replay: stop sending, wait for the results of what was sent, print the summary,
   * then let the JVM exit.
   */
  private static final class Interrupt {
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean requested;
    private Thread hook;

    static Interrupt install() {
      Interrupt interrupt = new Interrupt();
      interrupt.hook =
          new Thread(
              () -> {
                interrupt.requested = true;
                try {
                  interrupt.finished.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "prefixlog-replay-shutdown");
      Runtime.getRuntime().addShutdownHook(interrupt.hook);
      return interrupt;
    }

    boolean requested() {
      return requested;
    }

    void done() {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // The JVM is already shutting down (Ctrl-C): the hook is running and now returns.
        LOGGER.debug("shutdown in progress; the replay hook returns now");
      }
    }
  }
}
