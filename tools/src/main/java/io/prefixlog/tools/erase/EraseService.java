package io.prefixlog.tools.erase;

import io.prefixlog.archive.ArchivedTopic;
import io.prefixlog.bridge.proxy.SpillEraser;
import io.prefixlog.cli.Causes;
import io.prefixlog.cli.Outcome;
import io.prefixlog.cli.Progress;
import io.prefixlog.cli.Terminal;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.json.Json;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.topic.CompactedView;
import io.prefixlog.tools.topic.KafkaClients;
import io.prefixlog.tools.topic.TopicScan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Erases sessions: orders the stream app to forget them, tombstones their turns, deletes their raw
 * requests, dead letters and archived rows, or removes them from stopped proxies' spill
 * directories; or, with {@link ErasureRequest#check()}, checks that nothing of them is left. The
 * report goes to the terminal given, as {@code prefixlog erase} prints it.
 */
public final class EraseService {
  /**
   * What a run ended with.
   *
   * @param outcome done when every order was acknowledged and every part erased (or, for a check,
   *     nothing was left); failed otherwise, the report saying what is pending
   */
  public record Result(Outcome outcome) {
    public Result {
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  private final Terminal terminal;

  public EraseService(Terminal terminal) {
    this.terminal = Objects.requireNonNull(terminal, "terminal");
  }

  /** Erases (or checks) what the request selects. */
  public Result run(ErasureRequest settings) {
    Objects.requireNonNull(settings, "settings");
    return new Result(Outcome.ofExitCode(erase(settings)));
  }

  private int erase(ErasureRequest settings) {
    if (!settings.spillDirs().isEmpty()) {
      return eraseSpills(settings);
    }
    try (Admin admin = Admin.create(adminConfig(settings.bootstrap()))) {
      ErasureRequest resolved = withTenantSessions(settings);
      if (resolved == null) {
        terminal
            .out()
            .printf(
                "no session of %s on %s or %s: %s%n",
                settings.tenant().namedAs(),
                Topics.withPrefix(settings.topicPrefix()).sessionDeltas().name(),
                Topics.withPrefix(settings.topicPrefix()).requestsMetadata().name(),
                settings.check() ? "nothing left" : "nothing to erase");
        return Command.OK;
      }
      return resolved.check() ? check(resolved, admin) : erase(resolved, admin);
    } catch (TopicScan.ScanException | ControlProducer.KafkaWriteException e) {
      terminal.err().println("prefixlog erase: " + e.getMessage());
      return Command.FAILED;
    } catch (IOException | ExecutionException | TimeoutException | KafkaException e) {
      terminal.err().println("prefixlog erase: " + Causes.describe(e));
      return Command.FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      terminal.err().println("prefixlog erase: interrupted");
      return Command.FAILED;
    }
  }

  /**
   * The request with its tenant's sessions found and selected ({@link TenantSessions}), or as it is
   * when it names no tenant; null when it selects no session at all.
   */
  private ErasureRequest withTenantSessions(ErasureRequest s)
      throws TopicScan.ScanException, IOException {
    if (s.tenant() == null) {
      return s;
    }
    Topics topics = Topics.withPrefix(s.topicPrefix());
    List<String> scanned = List.of(topics.sessionDeltas().name(), topics.requestsMetadata().name());
    Map<String, String> found;
    try (Progress bar =
        bar(
            "find the sessions of "
                + s.tenant().namedAs()
                + " in "
                + String.join(" and ", scanned))) {
      found =
          TenantSessions.find(s.bootstrap(), scanned, s.tenant().id(), s.tenant().namedAs(), bar);
    }
    terminal.out().printf("%s: %d sessions%n", s.tenant().namedAs(), found.size());
    return s.withTenantSessions(found);
  }

  private int erase(ErasureRequest s, Admin admin)
      throws TopicScan.ScanException,
          IOException,
          ControlProducer.KafkaWriteException,
          InterruptedException,
          ExecutionException,
          TimeoutException {
    Topics topics = Topics.withPrefix(s.topicPrefix());
    Selection selection = s.selection();
    String eraseId = UUID.randomUUID().toString();
    EraseReport report = new EraseReport(eraseId, selection);

    TurnScan deltas;
    TurnScan lookups;
    TurnScan metadata;
    try (Progress bar = bar("read " + topics.sessionDeltas().name())) {
      deltas = TurnScan.read(s.bootstrap(), topics.sessionDeltas().name(), selection, false, bar);
    }
    try (Progress bar = bar("read " + topics.chunkLookups().name())) {
      lookups = TurnScan.read(s.bootstrap(), topics.chunkLookups().name(), selection, true, bar);
    }
    try (Progress bar = bar("read " + topics.requestsMetadata().name())) {
      metadata =
          TurnScan.read(s.bootstrap(), topics.requestsMetadata().name(), selection, false, bar);
    }
    Map<String, Map<String, Boolean>> chains = deltas.chains(selection);
    report.chains(chains);
    // A request whose body capture sampling left out has no turn: its metadata and lookup keys
    // are session_key/ts/request_id, so the TurnScan "chain" is its ts, judged against --before
    // from the metadata record's ts. The turns' chains decide for their own keys.
    Map<String, Map<String, Boolean>> withSampledOut = metadata.chains(selection);
    chains.forEach(
        (session, its) ->
            withSampledOut.computeIfAbsent(session, k -> new TreeMap<>()).putAll(its));
    Set<String> sources = kvSources(s, topics);

    int expectedAcks = selection.keys().size() + sources.size();
    List<ErasureAck> acks;
    try (AckCollector collector =
            new AckCollector(s.bootstrap(), topics.erasures().name(), eraseId);
        ControlProducer producer = new ControlProducer(s.bootstrap())) {
      long now = System.currentTimeMillis();
      for (String session : selection.keys()) {
        EraseRequest order = EraseRequest.forSession(eraseId, now, session, selection.before());
        producer.send(control(topics.requestsRaw().name(), session, order));
      }
      if (!sources.isEmpty()) {
        EraseRequest order = EraseRequest.forKv(eraseId, now, digests(selection.kvSessionIds()));
        for (String source : sources) {
          producer.send(control(topics.kvEvents().name(), source, order));
        }
      }
      report.tombstoned(
          topics.sessionDeltas().name(),
          tombstone(producer, topics.sessionDeltas().name(), deltas, chains));
      report.tombstoned(
          topics.chunkLookups().name(),
          tombstone(producer, topics.chunkLookups().name(), lookups, withSampledOut));
      report.tombstoned(
          topics.requestsMetadata().name(),
          tombstone(producer, topics.requestsMetadata().name(), metadata, withSampledOut));
      producer.confirm();
      terminal.err().println("prefixlog erase: orders sent; waiting for the stream app");
      acks = collector.await(expectedAcks, s.ackTimeout());
    }
    report.acks(acks, expectedAcks, s.ackTimeout());
    // What the archived topics hold now includes every record of the sessions the stream app
    // wrote before obeying the orders (acknowledged in the same transaction).
    SinkCatchUp sinkCatchUp =
        s.archive() == null
            ? null
            : SinkCatchUp.from(admin, s.bootstrap(), ArchivedTopic.all(s.topicPrefix()), selection);

    boolean allAcked = acks.size() >= expectedAcks;
    if (!s.keepRaw() && allAcked) {
      report.truncated(
          ProcessedInputs.truncate(
              admin,
              s.applicationId(),
              List.of(
                  topics.requestsRaw().name(),
                  s.applicationId() + "-requests-by-session-repartition",
                  topics.kvEvents().name(),
                  s.applicationId() + "-kv-events-by-source-repartition")));
    } else if (!s.keepRaw()) {
      report.pending(
          topics.requestsRaw().name()
              + ": the session's raw requests were not deleted, since the stream app has not"
              + " acknowledged; run erase again once it runs");
    } else {
      report.pending(
          topics.requestsRaw().name()
              + ": raw requests kept (--keep-raw) until the topic's retention");
    }
    // After the acknowledgements: a letter of an input the stream app read before the order is
    // committed by then (the same task, in order).
    DeadLetterErasure.Result letters =
        DeadLetterErasure.erase(admin, s.bootstrap(), topics.deadLetters().name(), selection);
    report.done(
        String.format(
            "%s: %d dead letters of these sessions deleted in %d partitions (%d other letters"
                + " written again at their partition's end first, with header %s)",
            letters.topic(),
            letters.erased(),
            letters.partitions(),
            letters.moved(),
            DeadLetterErasure.MOVED_FROM));
    report.compactionDue(
        CompactionDeadline.of(admin, compactedTopicsChanged(s, topics, acks, report)));

    boolean archiveOk = true;
    if (s.archive() != null) {
      // The sink drops tombstones: rows of records still in its lag would land after the
      // deletes. Wait until it has committed them (SinkCatchUp), then delete; when it does not
      // in time, delete what it has archived so far and say what is pending.
      terminal
          .err()
          .println("prefixlog erase: waiting for the archive's sink to commit these sessions");
      SinkCatchUp.Outcome sink =
          sinkCatchUp.await(
              s.sinkTimeout(), true, line -> terminal.err().println("prefixlog erase: " + line));
      archiveOk = ArchiveErasure.erase(s.archive(), s.topicPrefix(), selection, terminal, report);
      if (!sink.caughtUp()) {
        for (String line : sink.behind()) {
          report.failed(
              "archive: pending: "
                  + line
                  + ", after "
                  + s.sinkTimeout().toSeconds()
                  + " s (--sink-timeout); the rows it archives later will name these sessions:"
                  + " run erase again once it has caught up (erase --check --archive says"
                  + " \"pending: sink behind\" until then)");
        }
        archiveOk = false;
      }
    }
    report.print(terminal.out(), commandForCheck(s));
    return allAcked && archiveOk ? Command.OK : Command.FAILED;
  }

  /**
   * {@code --spill-dir}: the sessions' events out of stopped proxies' spill directories (see {@link
   * SpillEraser}), nothing else; no Kafka needed.
   */
  private int eraseSpills(ErasureRequest s) {
    boolean ok = true;
    for (Path dir : s.spillDirs()) {
      try {
        SpillEraser.Result r = SpillEraser.erase(dir, s.selection().keys());
        terminal
            .out()
            .printf(
                "spill %s: %d events of these sessions removed (%d segments rewritten, %d other"
                    + " unsent events kept, %d already sent dropped with them); quarantine: %d"
                    + " pieces zeroed in %d files%n",
                dir,
                r.eventsErased(),
                r.segmentsRewritten(),
                r.eventsKept(),
                r.acknowledgedDropped(),
                r.quarantinePiecesRedacted(),
                r.quarantineFilesRedacted());
      } catch (IOException | IllegalStateException | java.io.UncheckedIOException e) {
        terminal.err().println("prefixlog erase: spill " + dir + ": " + Causes.describe(e));
        ok = false;
      }
    }
    return ok ? Command.OK : Command.FAILED;
  }

  /**
   * The compacted topics this erasure wrote tombstones or new values to: their old values are what
   * is pending until the broker compacts them.
   */
  private static List<String> compactedTopicsChanged(
      ErasureRequest s, Topics topics, List<ErasureAck> acks, EraseReport report) {
    List<String> changed = new ArrayList<>();
    boolean sessionState = false;
    boolean kvState = false;
    long turnTombstones = report.tombstones();
    for (ErasureAck ack : acks) {
      if (!ErasureAck.ERASED.equals(ack.outcome())) {
        continue;
      }
      if (ErasureAck.SCOPE_SESSION.equals(ack.scope())) {
        sessionState = true;
        turnTombstones += ack.turnsTombstoned() == null ? 0 : ack.turnsTombstoned();
      } else {
        kvState = true;
      }
    }
    if (turnTombstones > 0) {
      changed.add(topics.sessionDeltas().name());
      changed.add(topics.chunkLookups().name());
      changed.add(topics.requestsMetadata().name());
    }
    if (sessionState) {
      for (String store : List.of("session-state", "session-bases", "session-request-ids")) {
        changed.add(s.applicationId() + "-" + store + "-changelog");
      }
    }
    if (kvState) {
      changed.add(topics.blockIndex().name());
      changed.add(topics.sourceStats().name());
      for (String store : List.of("kv-block-index", "kv-source-stats")) {
        changed.add(s.applicationId() + "-" + store + "-changelog");
      }
    }
    return changed;
  }

  private int check(ErasureRequest s, Admin admin)
      throws TopicScan.ScanException,
          IOException,
          InterruptedException,
          ExecutionException,
          TimeoutException {
    Topics topics = Topics.withPrefix(s.topicPrefix());
    Map<String, Long> left =
        Leftovers.find(
            admin,
            s.bootstrap(),
            s.topicPrefix(),
            s.applicationId(),
            s.selection(),
            topics.erasures().name(),
            topic -> bar("check " + topic));
    long archived = 0;
    List<String> sinkBehind = List.of();
    if (s.archive() != null) {
      // Rows the sink has not committed yet are not counted below: without this the check would
      // pass while rows of the sessions are on their way into the archive.
      sinkBehind =
          SinkCatchUp.from(admin, s.bootstrap(), ArchivedTopic.all(s.topicPrefix()), s.selection())
              .await(
                  s.sinkTimeout(),
                  false,
                  line -> terminal.err().println("prefixlog erase: " + line))
              .behind();
      archived = ArchiveErasure.count(s.archive(), s.topicPrefix(), s.selection());
    }
    EraseReport.printCheck(
        terminal.out(), s.selection(), left, s.archive() == null ? null : archived, sinkBehind);
    return left.isEmpty() && archived == 0 && sinkBehind.isEmpty() ? Command.OK : Command.FAILED;
  }

  private Set<String> kvSources(ErasureRequest s, Topics topics) throws IOException {
    try {
      return CompactedView.read(s.bootstrap(), topics.sourceStats().name(), "prefixlog-erase")
          .keySet();
    } catch (TopicScan.ScanException e) {
      // No KV index (PREFIXLOG_KV_INDEX_ENABLED=false, or no engine ever reported): nothing there.
      return Set.of();
    }
  }

  /** Tombstones every live key of the chosen chains, in its own partition; returns the count. */
  private static long tombstone(
      ControlProducer producer,
      String topic,
      TurnScan scan,
      Map<String, Map<String, Boolean>> chains) {
    long written = 0;
    for (TurnScan.Key key : scan.keys().values()) {
      if (!key.live()) {
        continue;
      }
      Boolean erase = chains.getOrDefault(key.session(), Map.of()).get(key.chain());
      if (erase == null || erase) {
        producer.send(new ProducerRecord<>(topic, key.partition(), key.key(), null));
        written++;
      }
    }
    return written;
  }

  /** SHA-256 (hex) of each id: the KV order names the ids by digest only. */
  private static List<String> digests(Set<String> ids) {
    return ids.stream().map(id -> Sha256.hex(id.getBytes(StandardCharsets.UTF_8))).toList();
  }

  private static ProducerRecord<String, byte[]> control(
      String topic, String key, EraseRequest order) throws IOException {
    byte[] value = Json.mapper().writeValueAsBytes(order);
    return new ProducerRecord<>(
        topic, null, key, value, ControlHeaders.markErase(new RecordHeaders()));
  }

  private Progress bar(String label) {
    return Progress.counting(terminal, false, label, 0, "records");
  }

  private static String commandForCheck(ErasureRequest s) {
    StringBuilder command = new StringBuilder("bin/prefixlog erase --check");
    for (String key : s.selection().sortedKeys()) {
      command.append(" --session ").append(key);
    }
    if (!s.bootstrap().equals(ErasureRequest.DEFAULT_BOOTSTRAP)) {
      command.append(" --bootstrap ").append(s.bootstrap());
    }
    if (!s.topicPrefix().equals(Topics.DEFAULT_PREFIX)) {
      command.append(" --topic-prefix ").append(s.topicPrefix());
    }
    if (!s.applicationId().equals(ErasureRequest.DEFAULT_APPLICATION_ID)) {
      command.append(" --application-id ").append(s.applicationId());
    }
    if (s.archive() != null) {
      command.append(" --archive …");
    }
    return command.toString();
  }

  private static Properties adminConfig(String bootstrap) {
    Properties p = KafkaClients.properties(bootstrap);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "prefixlog-erase");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
    return p;
  }
}
