package io.prefixlog.streams.session;

import io.prefixlog.core.control.EraseOrders;
import io.prefixlog.core.delta.ChainIds;
import io.prefixlog.core.delta.DeltaRecords;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.core.request.RawEventValidator;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.schemas.control.ControlHeaders;
import io.prefixlog.schemas.control.ErasureAck;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.RequestMetadata;
import io.prefixlog.streams.errors.DeadLetters;
import io.prefixlog.streams.errors.SourcePosition;
import io.prefixlog.streams.upgrade.WireFormat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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

  private final SessionDeltaSupplier.Wiring wiring;
  private final TurnEncoder encoder;
  private final RawEventValidator validator;
  private final DeadLetters deadLetters;
  private final JsonSerde<DeltaRecord> deltaSerde = JsonSerde.of(DeltaRecord.class);
  private final long ttlMs;
  private IdleIndex idle;
  private final long retentionMs;
  private final long dedupWindowMs;
  private final long maxRecordBytes;

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
  private long liveSessions;

  SessionDeltaProcessor(SessionDeltaSupplier.Wiring wiring) {
    this.wiring = wiring;
    this.encoder = new TurnEncoder(wiring.config().encoder());
    this.validator = new RawEventValidator(wiring.config().maxBodyBytes());
    this.deadLetters = new DeadLetters(wiring.metrics().registry(), wiring.deadLetterSink());
    this.ttlMs = wiring.config().sessionTtl().toMillis();
    this.retentionMs = wiring.config().sessionSeqRetention().toMillis();
    this.dedupWindowMs = wiring.config().dedupWindow().toMillis();
    this.maxRecordBytes = RecordLimits.maxRecordBytes(wiring.config().maxBodyBytes());
    this.writesRequestIdEntries =
        wiring.config().formatsToWrite().version(WireFormat.SEEN_REQUEST) < 2;
    this.metadataVersion = wiring.config().formatsToWrite().version(WireFormat.REQUEST_METADATA);
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
    this.idle = new IdleIndex(context.getStateStore(SessionStores.IDLE_INDEX), ttlMs, retentionMs);
    liveSessions = idle.rebuild(states);
    wiring.metrics().liveSessions().add(liveSessions);
    Duration interval = wiring.config().evictionInterval();
    context.schedule(interval, PunctuationType.STREAM_TIME, this::evictIdleSessions);
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
    ValidatedRequest request = outcome.accepted();
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

    SessionState stored = storedState(session);
    SessionState state = loadState(session, stored, request, record);
    boolean wasLive = !state.bases().isEmpty();
    String chain = state.chain();
    EncodedTurn turn =
        encoder.encode(
            state,
            request.body(),
            request.event().bodySha256(),
            request.utf8(),
            bases.bodiesOf(session, state),
            record.timestamp());

    SessionState next =
        bases.apply(session, state, turn, request.body(), request.event().bodySha256());
    states.put(session, SessionStateCodec.encode(next));
    idle.moved(session, stored, next);
    boolean isLive = !next.bases().isEmpty();
    if (isLive != wasLive) {
      adjustLive(isLive ? 1 : -1);
    }
    String turnKey = DeltaRecord.key(session, chain, turn.seq());
    byte[] entry = new SeenRequest(request.event().bodySha256(), turnKey).toBytes(session);
    requestIds.put(captureKey, entry, record.timestamp());
    if (writesRequestIdEntries && !requestIdKey.equals(captureKey)) {
      requestIds.put(requestIdKey, entry, record.timestamp());
    }

    // Serialised here, once, so the byte count is exact and the sink does not serialise again.
    byte[] delta = deltaSerde.toBytes(DeltaRecords.of(request, turn));
    if (delta.length > maxRecordBytes) {
      // JSON text of control characters takes six bytes per byte; base64 always fits, and a
      // record the producer refused would abort the exactly-once transaction on every retry.
      turn = turn.asKeyframe(EncodedTurn.KeyframeReason.RECORD_SIZE);
      delta = deltaSerde.toBytes(DeltaRecords.of(request, turn));
    }
    context.forward(
        new Record<Object, Object>(turnKey, delta, record.timestamp()), wiring.deltaSink());
    context.forward(
        new Record<Object, Object>(
            turnKey,
            RequestMetadata.of(request.event(), turnKey, metadataVersion),
            record.timestamp()),
        wiring.metadataSink());
    if (wiring.lookupChild() != null) {
      context.forward(
          new Record<Object, Object>(turnKey, request, record.timestamp()), wiring.lookupChild());
    }
    wiring.metrics().recordTurn(turn, request.body().length, delta.length, request.event().ts());
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
   * An erase order for this session (see {@link SessionErasure}): the current chain's delta,
   * metadata and lookup keys are tombstoned and the acknowledgement written, all in this task's
   * transaction. The session's next turn finds no state and starts a new chain.
   */
  private void obeyErase(Record<String, byte[]> record, String key, byte[] keyBytes) {
    EraseOrders.Outcome outcome = EraseOrders.session(key, record.value());
    if (outcome.rejected() != null) {
      deadLetters.send(context, record, keyBytes, outcome.rejected());
      return;
    }
    String session = outcome.order().sessionKey();
    SessionState before = storedState(session);
    SessionErasure.Result result = erasure.erase(outcome.order(), record.timestamp());
    bases.erased(session);
    if (before != null && storedState(session) == null) {
      idle.moved(session, before, null);
    }
    if (result.wasLive()) {
      adjustLive(-1);
    }
    for (String turnKey : result.tombstoneKeys()) {
      context.forward(
          new Record<Object, Object>(turnKey, null, record.timestamp()), wiring.deltaSink());
      context.forward(
          new Record<Object, Object>(turnKey, null, record.timestamp()), wiring.metadataSink());
      if (wiring.lookupChild() != null) {
        context.forward(
            new Record<Object, Object>(turnKey, null, record.timestamp()), wiring.lookupChild());
      }
    }
    ErasureAck ack = result.ack();
    context.forward(
        new Record<Object, Object>(ack.eraseId(), ack, record.timestamp()), wiring.erasureSink());
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
        .log();
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

  /** An entry under {@code key} within the dedup window with {@code bodySha256}, or null. */
  private SeenRequest sameBodyWithinWindow(
      String key, String session, String bodySha256, long timestamp) {
    long from = Math.max(0, timestamp - dedupWindowMs);
    long to =
        timestamp > Long.MAX_VALUE - dedupWindowMs ? Long.MAX_VALUE : timestamp + dedupWindowMs;
    try (WindowStoreIterator<byte[]> found = requestIds.fetch(key, from, to)) {
      while (found.hasNext()) {
        SeenRequest seen = SeenRequest.fromBytes(found.next().value, session);
        if (seen.bodySha256().equals(bodySha256)) {
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

  /**
   * The session's state as of {@code now}: a new chain when it has none (or one from before chains
   * existed), without its bases when it has been idle past the TTL, and a new chain when it has
   * been idle past the seq retention. Checked here as well as in the punctuator, so that the
   * outcome does not depend on when the punctuator last ran.
   */
  private SessionState storedState(String session) {
    byte[] stored = states.get(session);
    return stored == null ? null : SessionStateCodec.decode(stored);
  }

  /** The state the request is encoded against: the stored one, or a new chain, or dormant. */
  private SessionState loadState(
      String session,
      SessionState stored,
      ValidatedRequest request,
      Record<String, byte[]> record) {
    long now = record.timestamp();
    SessionState state = stored;
    String cause = null;
    if (state == null) {
      cause = "new";
    } else if (state.isLegacy()) {
      cause = "legacy_state";
    } else if (now - state.lastSeenMs() > retentionMs) {
      cause = "idle";
    }
    if (cause != null) {
      if (state != null) {
        forgetBases(session, state);
      }
      wiring.metrics().chainStarted(cause);
      return SessionState.newChain(
          ChainIds.of(
              request.event().requestId(),
              request.event().ts(),
              SourcePosition.of(context, record).toString()));
    }
    if (now - state.lastSeenMs() > ttlMs && !state.bases().isEmpty()) {
      forgetBases(session, state);
      wiring.metrics().sessionsEvicted().increment();
      return state.dormant();
    }
    return state;
  }

  private void forgetBases(String session, SessionState state) {
    bases.forget(session, state);
    if (!state.bases().isEmpty()) {
      adjustLive(-1);
    }
  }

  /**
   * Evicts the bases of sessions idle past the TTL and forgets the states idle past the seq
   * retention, taking from {@link IdleIndex} only the sessions that are due.
   */
  private void evictIdleSessions(long streamTime) {
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

  private void adjustLive(int change) {
    liveSessions += change;
    wiring.metrics().liveSessions().add(change);
  }

  @Override
  public void close() {
    // The task moves elsewhere (or the app stops): its sessions are no longer live here.
    wiring.metrics().liveSessions().add(-liveSessions);
    liveSessions = 0;
  }
}
