package io.prefixlog.tools.replay;

import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.ProjectHome;
import io.prefixlog.cli.Terminal;
import io.prefixlog.cli.Units;
import io.prefixlog.cli.UsageException;
import io.prefixlog.cli.Version;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.corpus.ChatRequests;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import io.prefixlog.tools.corpus.Conversation;
import io.prefixlog.tools.corpus.CorpusFile;
import io.prefixlog.tools.replay.EventSink.SinkException;
import io.prefixlog.tools.replay.InterleavePlan.Step;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays the conversation corpora: one raw request event per assistant turn into the raw topic, as
 * the capture would for a client that sends each conversation's id as {@code X-Session-ID}, or,
 * with {@link CorpusReplayRequest#viaProxy()}, one real HTTP request per turn to the capture proxy.
 * Several sessions are in flight at once (round robin), each session's turns in order; every send's
 * result is awaited and any failure fails the run. The summary goes to the terminal given, as
 * {@code prefixlog replay} prints it.
 */
public final class CorpusReplayService {
  private static final Logger LOGGER = LoggerFactory.getLogger(CorpusReplayService.class);
  private static final JsonSerde<RawRequestEvent> SERDE = JsonSerde.of(RawRequestEvent.class);

  private final Terminal terminal;
  private final EventSink.Factory sinks;
  private final Supplier<Optional<Path>> home;
  private final LongSupplier clock;

  /** A service that sends to Kafka, finds the bundled corpora in the project, stamps events now. */
  public CorpusReplayService(Terminal terminal) {
    this(terminal, KafkaEventSink::open, ProjectHome::find, System::currentTimeMillis);
  }

  CorpusReplayService(
      Terminal terminal,
      EventSink.Factory sinks,
      Supplier<Optional<Path>> home,
      LongSupplier clock) {
    this.terminal = Objects.requireNonNull(terminal, "terminal");
    this.sinks = Objects.requireNonNull(sinks, "sinks");
    this.home = Objects.requireNonNull(home, "home");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Replays what the request selects; the outcome says whether every send was acknowledged. */
  public ReplayResult run(CorpusReplayRequest settings) {
    Objects.requireNonNull(settings, "settings");
    return new ReplayResult(Outcome.ofExitCode(replay(settings)));
  }

  private int replay(CorpusReplayRequest settings) {
    Selection selection;
    try {
      selection = select(settings);
    } catch (UsageException e) {
      terminal.err().println("prefixlog replay: " + e.getMessage());
      return Command.USAGE;
    } catch (RuntimeException e) {
      terminal.err().println("prefixlog replay: " + e.getMessage());
      return Command.FAILED;
    }
    if (settings.secretIsDefault() && settings.viaProxy() == null) {
      terminal
          .err()
          .println(
              "prefixlog replay: warning: using the development session secret; set "
                  + CorpusReplayRequest.SECRET_ENV
                  + " (or --secret) to the stream app's and bridge's secret outside development");
    }
    int[] turnCounts = selection.sessions().stream().mapToInt(Conversation::requestCount).toArray();
    List<Step> plan = InterleavePlan.of(turnCounts, settings.interleave(), settings.maxTurns());
    if (settings.viaProxy() != null) {
      return viaProxy(settings, selection, plan);
    }
    String topic = Topics.withPrefix(settings.topicPrefix()).requestsRaw().name();
    try (EventSink sink = sinks.open(settings.bootstrap(), topic)) {
      return send(settings, selection, plan, sink, topic);
    } catch (SinkException e) {
      terminal.err().println("prefixlog replay: " + e.getMessage());
      return Command.FAILED;
    }
  }

  private Selection select(CorpusReplayRequest settings) throws UsageException {
    List<Path> files = CorpusSources.resolve(settings.corpus(), home.get());
    Random random = settings.seed() == null ? null : new Random(settings.seed());
    List<Conversation> sessions = new ArrayList<>();
    for (Path file : files) {
      List<Conversation> conversations = new ArrayList<>(CorpusFile.read(file));
      conversations.removeIf(c -> c.requestCount() == 0);
      if (random != null) {
        Collections.shuffle(conversations, random);
      }
      int take = (int) Math.min(conversations.size(), settings.maxConversations());
      for (Conversation conversation : conversations.subList(0, take)) {
        sessions.add(conversation.withSessionSuffix(settings.sessionSuffix()));
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

  private Turns turns(CorpusReplayRequest settings, Selection selection, List<Step> plan) {
    ChatRequests renderer = new ChatRequests(settings.model(), ChatRequests.DEFAULT_SYSTEM_PROMPT);
    return new Turns(selection.sessions(), plan, renderer, selection.random());
  }

  private int viaProxy(CorpusReplayRequest settings, Selection selection, List<Step> plan) {
    ProxyReplay replay =
        new ProxyReplay(
            terminal,
            settings.viaProxy(),
            settings.concurrency(),
            settings.streamFraction(),
            "prefixlog-replay/" + Version.current(),
            settings.sessionHeader(),
            plan.size());
    Turns turns = turns(settings, selection, plan);
    long started = System.nanoTime();
    return ReplayInterrupt.during(
        terminal,
        interrupt -> {
          ProxyReplay.Outcome outcome;
          try (Progress progress =
              Progress.counting(terminal, settings.progress(), "replay", plan.size(), "requests")) {
            outcome = replay.run(turns, progress, settings.rate(), interrupt::requested);
          }
          replay.printSummary(
              outcome, selection.files(), System.nanoTime() - started, settings.rate());
          return ReplayEnd.report(
              terminal.err(),
              outcome.sent(),
              outcome.failed(),
              replay.firstFailure(),
              interrupt.requested());
        });
  }

  private int send(
      CorpusReplayRequest settings,
      Selection selection,
      List<Step> plan,
      EventSink sink,
      String topic) {
    ReplayEvents events =
        new ReplayEvents(settings.secret(), Version.current(), settings.sessionHeader());
    Turns turns = turns(settings, selection, plan);
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<Exception> firstFailure = new AtomicReference<>();
    long bodyBytes = 0;
    long sent = 0;
    long started = System.nanoTime();
    ReplayInterrupt interrupt = ReplayInterrupt.install();
    try {
      try (Progress progress =
          Progress.counting(terminal, settings.progress(), "replay", plan.size(), "events")) {
        for (Turns.Turn turn : turns) {
          if (interrupt.requested()) {
            break;
          }
          pace(settings.rate(), started, sent);
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
          selection.files(),
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
        return Command.FAILED;
      }
      if (interrupt.requested()) {
        terminal
            .err()
            .println("prefixlog replay: interrupted after " + Units.count(sent) + " events");
        return Command.FAILED;
      }
      return Command.OK;
    } finally {
      terminal.out().flush();
      interrupt.done();
    }
  }

  private void printSummary(
      CorpusReplayRequest settings,
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
            settings.bootstrap(),
            Units.bytes(bodyBytes),
            Units.seconds(elapsedNanos),
            Units.count(Math.round(sent / seconds)),
            settings.interleave(),
            settings.rate() == 0
                ? "unlimited"
                : (settings.rate() == Math.rint(settings.rate())
                        ? Long.toString((long) settings.rate())
                        : Double.toString(settings.rate()))
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
}
