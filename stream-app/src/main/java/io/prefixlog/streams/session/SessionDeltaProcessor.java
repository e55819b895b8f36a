package io.prefixlog.streams.session;

import io.prefixlog.core.control.EraseOrders;
import io.prefixlog.core.delta.ChainIds;
import io.prefixlog.core.delta.DeltaRecords;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.core.request.QueryCredentials;
import io.prefixlog.core.request.RawEventValidator;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.control.EraseRequest;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.RequestMetadata;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.errors.DeadLetters;
import io.prefixlog.streams.errors.PartialWriteException;
import io.prefixlog.streams.errors.SourcePosition;
import io.prefixlog.streams.upgrade.WireFormat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encodes every raw request event as one delta record of its session.
 *
 * <p>Per request: validate (a bad input becomes a dead letter and nothing else happens), drop an
 * exact resend of a capture the session stored within the dedup window (counted as a duplicate; see
 * {@link #storedCapture}), load the session's state (a session without one starts a new chain), let
 * the {@link TurnEncoder} pick a base or decide on a keyframe, store the body as a base when the
 * encoder keeps it, delete the bases it dropped, save the state and forward the record keyed {@code
 * session_key/chain/seq}, then hand the request to the chunk-lookup processor under the same key.
 * All of it happens inside the task's exactly-once transaction, so a crash replays the request
 * against the state it saw, and the output is written once.
 *
 * <p>Time is stream time (record timestamps), never the wall clock: a backlog processed after an
 * outage or a restore is judged by when it was captured, so its sessions keep their bases. A
 * session idle for longer than the TTL loses its bases (keeping its chain and seq counter); after
 * the seq retention its whole state goes, and its next turn starts a new chain, whose keys cannot
 * collide with the old chain's.
 */
final class SessionDeltaProcessor implements Processor<String, byte[], Object, Object> {
  private static final Logger LOGGER = LoggerFactory.getLogger(SessionDeltaProcessor.class);
  private static final String INDEXING = "idle_index";
  private static final String ERASURE = "erasure";
  private static final String ERASURE_TURNS = "erasure_turns";
  private static final String ERASURE_REQUEST_IDS = "erasure_request_ids";

  private final SessionDeltaSupplier.Wiring wiring;
  private final TurnEncoder encoder;
  private final RawEventValidator validator;
  private final QueryCredentials queryCredentials;
  private final DeadLetters deadLetters;
  private final JsonSerde<DeltaRecord> deltaSerde = JsonSerde.of(DeltaRecord.class);
  private final long ttlMs;
  private IdleIndex idle;
  private final long retentionMs;
  private final long dedupWindowMs;
  private final long maxRecordBytes;
  private final int bulkBatch;
  private long indexingSince;
  private long indexedSessions;

  /**
   * Whether a dedup entry is written under {@code session_key/request_id} as well as under the
   * capture's identity, for members of a build that dedups by request id alone ({@code
   * PREFIXLOG_UPGRADE_FROM} below the generation of {@link WireFormat#SEEN_REQUEST} 2).
   */
  private final boolean writesRequestIdEntries;

  /** The version of the {@code requests.metadata} records written. */
  private final int metadataVersion;

  private ProcessorContext<Object, Object> context;
  private KeyValueStore<String, byte[]> states;
  private BaseStore bases;
  private WindowStore<String, byte[]> requestIds;
  private SessionErasure erasure;

  /** The erasures under way in this task, by job key (a copy of what the bases store holds). */
  private final TreeMap<String, ErasureJob> jobs = new TreeMap<>();

  private long liveSessions;

  SessionDeltaProcessor(SessionDeltaSupplier.Wiring wiring) {
    this.wiring = wiring;
    this.encoder = new TurnEncoder(wiring.config().encoder());
    this.validator = new RawEventValidator(wiring.config().maxBodyBytes());
    this.queryCredentials = wiring.config().queryCredentials();
    this.deadLetters = new DeadLetters(wiring.metrics().registry(), wiring.deadLetterSink());
    this.ttlMs = wiring.config().sessionTtl().toMillis();
    this.retentionMs = wiring.config().sessionSeqRetention().toMillis();
    this.dedupWindowMs = wiring.config().dedupWindow().toMillis();
    this.maxRecordBytes = RecordLimits.maxRecordBytes(wiring.config().maxBodyBytes());
    this.writesRequestIdEntries =
        wiring.config().formatsToWrite().version(WireFormat.SEEN_REQUEST) < 2;
    this.metadataVersion = wiring.config().formatsToWrite().version(WireFormat.REQUEST_METADATA);
    this.bulkBatch = wiring.config().bulkBatch();
  }

  @Override
  public void init(ProcessorContext<Object, Object> context) {
    this.context = context;
    this.states = context.getStateStore(SessionStores.STATE);
    KeyValueStore<String, byte[]> baseRecords = context.getStateStore(SessionStores.BASES);
    this.bases =
        new BaseStore(
            baseRecords,
            wiring.baseCache(),
            wiring.config().encoder(),
            wiring.config().baseRebuildRecords(),
            wiring.metrics().baseRebuildFailures());
    this.requestIds = context.getStateStore(SessionStores.REQUEST_IDS);
    this.erasure = new SessionErasure(states, baseRecords, requestIds);
    for (ErasureJob job : erasure.pending()) {
      jobs.put(job.key(), job);
    }
    wiring.metrics().bulkPending(ERASURE).add(jobs.size());
    this.idle = new IdleIndex(context.getStateStore(SessionStores.IDLE_INDEX), ttlMs, retentionMs);
    idle.startIndexing();
    indexingSince = System.nanoTime();
    wiring.metrics().bulkPending(INDEXING).increment();
    LOGGER
        .atInfo()
        .setMessage("indexing the task's sessions for idle eviction, in steps")
        .addKeyValue("task", context.taskId())
        .addKeyValue("batch", bulkBatch)
        .log();
    Duration interval = wiring.config().evictionInterval();
    context.schedule(interval, PunctuationType.STREAM_TIME, this::evictIdleSessions);
    context.schedule(
        wiring.config().bulkInterval(), PunctuationType.WALL_CLOCK_TIME, wallClock -> bulk());
    // A first step of indexing at once (a small task is then done with it), but erasures wait for
    // the punctuation: their steps forward tombstones, which a processor cannot do in init.
    indexStep(bulkBatch);
  }

  /**
   * A step of the work too large for one transaction ({@code PREFIXLOG_BULK_BATCH} keys at most):
   * indexing the sessions of a task that just started, then the erasures under way.
   */
  private void bulk() {
    try {
      int budget = bulkBatch;
      if (idle.indexing()) {
        budget -= indexStep(budget);
      }
      for (ErasureJob job : List.copyOf(jobs.values())) {
        if (budget <= 0) {
          break;
        }
        budget -= erasureStep(job, budget);
        if (job.done()) {
          erasure.remove(job);
          context.forward(
              new Record<Object, Object>(job.eraseId, job.ack(), job.orderTs),
              wiring.erasureSink());
          jobs.remove(job.key());
          wiring.metrics().bulkPending(ERASURE).decrement();
          obeyed(job.ack(), true);
        } else {
          erasure.save(job);
        }
      }
    } catch (StreamsException e) {
      throw e;
    } catch (RuntimeException e) {
      throw partialWrite("bulk step", null, e);
    }
  }

  /**
   * @return the states indexed
   */
  private int indexStep(int budget) {
    IdleIndex.Step step = idle.indexStep(states, budget);
    indexedSessions += step.indexed();
    // The sessions of this step joined the live count as they are now; process() kept it for
    // the sessions indexed before.
    adjustLive(step.live());
    wiring.metrics().bulkKeys(INDEXING, step.indexed());
    if (step.done()) {
      wiring.metrics().bulkPending(INDEXING).decrement();
      LOGGER
          .atInfo()
          .setMessage("the task's sessions are indexed for idle eviction")
          .addKeyValue("task", context.taskId())
          .addKeyValue("sessions", indexedSessions)
          .addKeyValue("live", liveSessions)
          .addKeyValue("ms", (System.nanoTime() - indexingSince) / 1_000_000)
          .log();
    }
    return step.indexed();
  }

  @Override
  public void process(Record<String, byte[]> record) {
    String key = SourcePosition.hadNullKey(record) ? null : record.key();
    byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    if (ControlHeaders.isErase(record.headers())) {
      obeyErase(record, key, keyBytes);
      return;
    }
    RawEventValidator.Outcome outcome = validator.validate(key, record.value());
    if (outcome.rejected() != null) {
      deadLetters.send(context, record, keyBytes, outcome.rejected());
      return;
    }
    ValidatedRequest request = withoutQueryCredentials(outcome.accepted());
    if (request.metadataOnly()) {
      forwardMetadataOnly(request, record.timestamp());
      return;
    }
    String session = request.event().sessionKey();
    String captureKey = SessionStores.requestIdKey(session, request.event().captureIdentity());
    String requestIdKey = SessionStores.requestIdKey(session, request.event().requestId());
    SeenRequest seen = storedCapture(captureKey, requestIdKey, request, record.timestamp());
    if (seen != null) {
      dropResend(record, request, seen);
      return;
    }

    // Everything the turn writes is computed first: a failure up to here is the input's (a dead
    // letter, and the session is as it was); from the first write on, the task fails instead.
    SessionState stored = storedState(session);
    Loaded loaded = loadState(stored, request, record);
    SessionState state = loaded.state();
    EncodedTurn turn =
        encoder.encode(state, request, bases.bodiesOf(session, state), record.timestamp());
    BaseStore.Write baseWrite =
        bases.prepare(session, state, turn, request.body(), request.event().bodySha256());
    SessionState next = baseWrite.next();
    byte[] nextState = SessionStateCodec.encode(next);
    String turnKey = DeltaRecord.key(session, state.chain(), turn.seq());
    byte[] seenBytes = new SeenRequest(request.event().bodySha256(), turnKey).toBytes(session);
    // Serialised here, once, so the byte count is exact and the sink does not serialise again.
    byte[] delta = deltaSerde.toBytes(DeltaRecords.of(request, turn));
    if (delta.length > maxRecordBytes) {
      // JSON text of control characters takes six bytes per byte; base64 always fits, and a
      // record the producer refused would abort the exactly-once transaction on every retry.
      turn = turn.asKeyframe(EncodedTurn.KeyframeReason.RECORD_SIZE);
      delta = deltaSerde.toBytes(DeltaRecords.of(request, turn));
    }
    RequestMetadata metadata = RequestMetadata.of(request.event(), turnKey, metadataVersion);

    try {
      if (loaded.forget() != null) {
        bases.forget(session, loaded.forget());
      }
      bases.write(baseWrite);
      states.put(session, nextState);
      idle.moved(session, stored, next);
      requestIds.put(captureKey, seenBytes, record.timestamp());
      if (writesRequestIdEntries && !requestIdKey.equals(captureKey)) {
        requestIds.put(requestIdKey, seenBytes, record.timestamp());
      }
      context.forward(
          new Record<Object, Object>(turnKey, delta, record.timestamp()), wiring.deltaSink());
      context.forward(
          new Record<Object, Object>(turnKey, metadata, record.timestamp()), wiring.metadataSink());
      if (wiring.lookupChild() != null) {
        context.forward(
            new Record<Object, Object>(turnKey, request, record.timestamp()), wiring.lookupChild());
      }
    } catch (StreamsException e) {
      throw e; // already fails the task (or migrates it)
    } catch (RuntimeException e) {
      throw partialWrite("turn " + turnKey, record, e);
    }
    if (loaded.chainCause() != null) {
      wiring.metrics().chainStarted(loaded.chainCause());
    }
    if (loaded.evicted()) {
      wiring.metrics().sessionsEvicted().increment();
    }
    adjustLive(session, live(next) - live(stored));
    wiring.metrics().recordTurn(turn, request.body().length, delta.length, request.event().ts());
  }

  private static int live(SessionState state) {
    return state == null || state.bases().isEmpty() ? 0 : 1;
  }

  /**
   * Logs a failure after the first write of an input's outcome and makes it fail the task (see
   * {@link PartialWriteException}).
   */
  private PartialWriteException partialWrite(
      String what, Record<String, byte[]> record, RuntimeException cause) {
    SourcePosition origin = record == null ? null : SourcePosition.of(context, record);
    LOGGER
        .atError()
        .setMessage("failed after its first write; failing the task so that its writes abort")
        .addKeyValue("work", what)
        .addKeyValue("topic", origin == null ? null : origin.topic())
        .addKeyValue("partition", origin == null ? null : origin.partition())
        .addKeyValue("offset", origin == null ? null : origin.offset())
        .addKeyValue("error", cause.getClass().getName())
        .log();
    return new PartialWriteException(what, cause);
  }

  /**
   * A metadata-only event (capture sampling left its body out): its metadata record and, when the
   * bridge sent chunk hashes, its hash-only lookup, both keyed {@code session_key/ts/request_id}.
   * No delta, no state, no dedup entry: the session's turns and chain are not touched, so a
   * sampled-out request is never a missing turn. The key is a function of the event, so a duplicate
   * delivery rewrites the same records under the same key. {@code prefixlog erase} tombstones these
   * keys from what the topics hold.
   */
  private void forwardMetadataOnly(ValidatedRequest request, long timestamp) {
    RawRequestEvent event = request.event();
    String key = RequestMetadata.sampledOutKey(event);
    context.forward(
        new Record<Object, Object>(
            key, RequestMetadata.of(event, null, metadataVersion), timestamp),
        wiring.metadataSink());
    if (wiring.lookupChild() != null && event.promptChunks() != null) {
      context.forward(new Record<Object, Object>(key, request, timestamp), wiring.lookupChild());
    }
    wiring.metrics().sampledOut().increment();
  }

  /**
   * An erase order for this session (see {@link SessionErasure}): the state and the bases go at
   * once, so the session's next turn starts a new chain; the current chain's delta, metadata and
   * lookup keys are tombstoned and its dedup entries deleted, up to {@code PREFIXLOG_BULK_BATCH} of
   * them in this transaction and the rest by the bulk punctuator, from a cursor kept in the store;
   * the acknowledgement is written when all of it is done.
   */
  private void obeyErase(Record<String, byte[]> record, String key, byte[] keyBytes) {
    EraseOrders.Outcome outcome = EraseOrders.session(key, record.value());
    if (outcome.rejected() != null) {
      deadLetters.send(context, record, keyBytes, outcome.rejected());
      return;
    }
    EraseRequest order = outcome.order();
    String session = order.sessionKey();
    SessionState before = storedState(session);
    if (jobs.containsKey(ErasureJob.key(session, order.eraseId()))) {
      // The same order again (a resend): the job under way does what it asks.
      LOGGER
          .atInfo()
          .setMessage("session erase order already under way")
          .addKeyValue("eraseId", order.eraseId())
          .addKeyValue("sessionKey", session)
          .log();
      return;
    }
    SessionErasure.Start start;
    try {
      start = erasure.start(order, before, record.timestamp());
      if (start.kept() != null) {
        context.forward(
            new Record<Object, Object>(order.eraseId(), start.kept(), record.timestamp()),
            wiring.erasureSink());
      } else {
        bases.erased(session);
        if (before != null) {
          idle.moved(session, before, null);
        }
        ErasureJob job = start.job();
        erasureStep(job, bulkBatch);
        if (job.done()) {
          context.forward(
              new Record<Object, Object>(job.eraseId, job.ack(), job.orderTs),
              wiring.erasureSink());
        } else {
          erasure.save(job);
        }
      }
    } catch (StreamsException e) {
      throw e;
    } catch (RuntimeException e) {
      throw partialWrite("erase order " + order.eraseId(), record, e);
    }
    if (start.wasLive()) {
      adjustLive(session, -1);
    }
    if (start.kept() != null) {
      obeyed(start.kept(), false);
    } else if (start.job().done()) {
      obeyed(start.job().ack(), false);
    } else {
      ErasureJob job = start.job();
      jobs.put(job.key(), job);
      wiring.metrics().bulkPending(ERASURE).increment();
      LOGGER
          .atInfo()
          .setMessage("session erase order taken in steps")
          .addKeyValue("eraseId", job.eraseId)
          .addKeyValue("sessionKey", session)
          .addKeyValue("chain", job.chain)
          .addKeyValue("turns", job.lastSeq)
          .addKeyValue("tombstoned", job.nextSeq - 1)
          .addKeyValue("basesRemoved", job.basesRemoved)
          .addKeyValue("batch", bulkBatch)
          .log();
    }
  }

  /**
   * Up to {@code budget} keys of an erasure: tombstones forwarded, dedup entries deleted.
   *
   * @return the keys done
   */
  private int erasureStep(ErasureJob job, int budget) {
    long tombstonedBefore = job.nextSeq;
    long idsBefore = job.requestIdsRemoved;
    int done = erasure.step(job, budget, this::tombstone);
    wiring.metrics().bulkKeys(ERASURE_TURNS, job.nextSeq - tombstonedBefore);
    wiring.metrics().bulkKeys(ERASURE_REQUEST_IDS, job.requestIdsRemoved - idsBefore);
    return done;
  }

  /** An erased turn: its delta, metadata and lookup keys get tombstones. */
  private void tombstone(String turnKey, long timestamp) {
    context.forward(new Record<Object, Object>(turnKey, null, timestamp), wiring.deltaSink());
    context.forward(new Record<Object, Object>(turnKey, null, timestamp), wiring.metadataSink());
    if (wiring.lookupChild() != null) {
      context.forward(new Record<Object, Object>(turnKey, null, timestamp), wiring.lookupChild());
    }
  }

  /** Counts and logs an acknowledged order, done at once or in bulk steps. */
  private void obeyed(ErasureAck ack, boolean inSteps) {
    wiring.metrics().erasure(ack.outcome());
    LOGGER
        .atInfo()
        .setMessage("session erase order obeyed")
        .addKeyValue("eraseId", ack.eraseId())
        .addKeyValue("sessionKey", ack.sessionKey())
        .addKeyValue("outcome", ack.outcome())
        .addKeyValue("chain", ack.chain())
        .addKeyValue("tombstoned", ack.turnsTombstoned())
        .addKeyValue("basesRemoved", ack.basesRemoved())
        .addKeyValue("requestIdsRemoved", ack.requestIdsRemoved())
        .addKeyValue("stateCompacted", ack.stateCompacted())
        .addKeyValue("inSteps", inSteps)
        .log();
  }

  /** Whether an erasure of {@code session}'s chain {@code chain} is under way in this task. */
  private boolean erasing(String session, String chain) {
    String prefix = ErasureJob.key(session, "");
    for (ErasureJob job : jobs.tailMap(prefix).values()) {
      if (!job.key().startsWith(prefix)) {
        return false;
      }
      if (Objects.equals(job.chain, chain)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The entry of a capture the session stored within the dedup window around {@code timestamp} that
   * this request is an exact resend of, or null: a distinct request, to be stored.
   *
   * <p>A capture is identified by its {@code capture_id}, or without one by its {@code request_id}
   * and {@code ts} ({@link io.prefixlog.schemas.request.RawRequestEvent#captureIdentity}), and a
   * resend carries the same body: so a client's retry (captured again), a request under a reused
   * client id and another body under a reused capture id are all stored. Builds before capture ids
   * kept one entry per {@code request_id} (the capture proxy's {@code request_id} is its capture
   * id, so for its events the two keys are one), and a member of this build writes it too while one
   * of them may run: an entry there with the same body is a resend of a capture that such a build
   * stored, or stored for such a build to see, and is dropped as it would have dropped it.
   */
  private SeenRequest storedCapture(
      String captureKey, String requestIdKey, ValidatedRequest request, long timestamp) {
    String session = request.event().sessionKey();
    String bodySha256 = request.event().bodySha256();
    SeenRequest seen = sameBodyWithinWindow(captureKey, session, bodySha256, timestamp);
    if (seen == null && !requestIdKey.equals(captureKey)) {
      seen = sameBodyWithinWindow(requestIdKey, session, bodySha256, timestamp);
    }
    return seen;
  }

  /**
   * An entry under {@code key} within the dedup window with {@code bodySha256}, or null. An entry
   * of a chain being erased does not count: that chain is gone for the session, whose request is a
   * turn of its new chain, as it is once the erasure has deleted the entry.
   */
  private SeenRequest sameBodyWithinWindow(
      String key, String session, String bodySha256, long timestamp) {
    long from = Math.max(0, timestamp - dedupWindowMs);
    long to =
        timestamp > Long.MAX_VALUE - dedupWindowMs ? Long.MAX_VALUE : timestamp + dedupWindowMs;
    try (WindowStoreIterator<byte[]> found = requestIds.fetch(key, from, to)) {
      while (found.hasNext()) {
        SeenRequest seen = SeenRequest.fromBytes(found.next().value, session);
        if (seen.bodySha256().equals(bodySha256)
            && (jobs.isEmpty()
                || !erasing(session, SessionErasure.chainOf(session, seen.turnKey())))) {
          return seen;
        }
      }
    }
    return null;
  }

  /** An exact resend of a stored capture (a spill resend, a producer retry): counted, dropped. */
  private void dropResend(
      Record<String, byte[]> record, ValidatedRequest request, SeenRequest seen) {
    wiring.metrics().duplicates().increment();
    SourcePosition origin = SourcePosition.of(context, record);
    LOGGER
        .atDebug()
        .setMessage("duplicate request dropped")
        .addKeyValue("sessionKey", request.event().sessionKey())
        .addKeyValue("requestId", request.event().requestId())
        .addKeyValue("turn", seen.turnKey())
        .addKeyValue("topic", origin.topic())
        .addKeyValue("partition", origin.partition())
        .addKeyValue("offset", origin.offset())
        .log();
  }

  /** The session's stored state, or null. */
  private SessionState storedState(String session) {
    byte[] stored = states.get(session);
    return stored == null ? null : SessionStateCodec.decode(stored);
  }

  /**
   * The state a request is encoded against.
   *
   * @param state the stored state, or a new chain, or the stored state without its bases
   * @param forget the stored state whose bases the turn deletes (a new chain, an eviction), or null
   * @param chainCause why a chain starts ({@link StreamAppMetrics#chainStarted}), or null
   * @param evicted whether the session was idle past the TTL with bases
   */
  private record Loaded(
      SessionState state, SessionState forget, String chainCause, boolean evicted) {}

  /**
   * The state the request is encoded against, as of its record time: a new chain when the session
   * has none (or one from before chains existed), without its bases when it has been idle past the
   * TTL, and a new chain when it has been idle past the seq retention. Checked here as well as in
   * the punctuator, so that the outcome does not depend on when the punctuator last ran. Writes
   * nothing: the caller deletes the bases of {@link Loaded#forget}.
   */
  private Loaded loadState(
      SessionState stored, ValidatedRequest request, Record<String, byte[]> record) {
    long now = record.timestamp();
    String cause = null;
    if (stored == null) {
      cause = "new";
    } else if (stored.isLegacy()) {
      cause = "legacy_state";
    } else if (now - stored.lastSeenMs() > retentionMs) {
      cause = "idle";
    }
    if (cause != null) {
      SessionState chain =
          SessionState.newChain(
              ChainIds.of(
                  request.event().requestId(),
                  request.event().ts(),
                  SourcePosition.of(context, record).toString()));
      return new Loaded(chain, stored, cause, false);
    }
    if (now - stored.lastSeenMs() > ttlMs && !stored.bases().isEmpty()) {
      return new Loaded(stored.dormant(), stored, null, true);
    }
    return new Loaded(stored, null, null, false);
  }

  private void forgetBases(String session, SessionState state) {
    bases.forget(session, state);
    if (!state.bases().isEmpty()) {
      adjustLive(session, -1);
    }
  }

  /**
   * Evicts the bases of sessions idle past the TTL and forgets the states idle past the seq
   * retention, taking from {@link IdleIndex} only the sessions that are due.
   */
  private void evictIdleSessions(long streamTime) {
    try {
      evictIdleSessionsBefore(streamTime);
    } catch (StreamsException e) {
      throw e;
    } catch (RuntimeException e) {
      throw partialWrite("idle eviction at stream time " + streamTime, null, e);
    }
  }

  private void evictIdleSessionsBefore(long streamTime) {
    int forgotten = 0;
    int evicted = 0;
    List<IdleIndex.Due> due = idle.dueBefore(streamTime);
    for (IdleIndex.Due entry : due) {
      SessionState state = storedState(entry.session());
      if (state == null || idle.dueMs(state) != entry.dueMs()) {
        idle.drop(entry); // erased, or moved on since: nothing is due for this entry
        continue;
      }
      if (!state.bases().isEmpty()) {
        evicted++;
      }
      forgetBases(entry.session(), state);
      if (streamTime - state.lastSeenMs() > retentionMs) {
        states.delete(entry.session());
        idle.moved(entry.session(), state, null);
        forgotten++;
      } else {
        SessionState dormant = state.dormant();
        states.put(entry.session(), SessionStateCodec.encode(dormant));
        idle.moved(entry.session(), state, dormant);
      }
    }
    if (evicted + forgotten > 0) {
      wiring.metrics().sessionsEvicted().increment(evicted);
      LOGGER
          .atInfo()
          .setMessage("idle sessions evicted")
          .addKeyValue("evicted", evicted)
          .addKeyValue("forgotten", forgotten)
          .addKeyValue("streamTime", streamTime)
          .log();
    }
  }

  /**
   * A change of the live count by one session's turn, eviction or erasure; a session the task has
   * not indexed yet is counted when it is ({@link #indexStep}).
   */
  private void adjustLive(String session, int change) {
    if (change != 0 && idle.indexed(session)) {
      adjustLive(change);
    }
  }

  private void adjustLive(int change) {
    liveSessions += change;
    wiring.metrics().liveSessions().add(change);
  }

  @Override
  public void close() {
    // The task moves elsewhere (or the app stops): its sessions are no longer live here.
    wiring.metrics().liveSessions().add(-liveSessions);
    liveSessions = 0;
    if (idle != null && idle.indexing()) {
      wiring.metrics().bulkPending(INDEXING).decrement();
    }
    wiring.metrics().bulkPending(ERASURE).add(-jobs.size());
    jobs.clear();
  }

  /**
   * The request with a path that holds no credential parameter: the bridge removes them, but a
   * producer that writes to {@code requests.raw} directly (kcat, a middleware, an older bridge) may
   * not have, and the path goes on to every output.
   */
  private ValidatedRequest withoutQueryCredentials(ValidatedRequest request) {
    QueryCredentials.Stripped path = queryCredentials.strip(request.event().path());
    if (path.removed() == 0) {
      return request;
    }
    wiring.metrics().queryCredentials().increment(path.removed());
    return new ValidatedRequest(
        request.event().withPath(path.target()), request.body(), request.utf8());
  }
}
