package io.prefixlog.streams.session;

import io.prefixlog.core.delta.BaseInfo;
import io.prefixlog.core.delta.DeltaRecords;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.SessionStateCodec;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.core.request.RawEventValidator;
import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.errors.DeadLetters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encodes every raw request event as one delta record of its session.
 *
 * <p>Per request: validate (a bad input becomes a dead letter and nothing else happens), load the
 * session's state, let the {@link TurnEncoder} pick a base or decide on a keyframe, store the body
 * as a base when the encoder keeps it, delete the bases it dropped, save the state and forward the
 * record keyed {@code session_key/seq}. All of it happens inside the task's exactly-once
 * transaction, so a crash replays the request against the state it saw, and the output is written
 * once.
 *
 * <p>A wall-clock punctuator forgets the bases of sessions idle for longer than the TTL (keeping
 * the seq counter), and the whole state once the seq retention has passed.
 */
final class SessionDeltaProcessor implements Processor<String, byte[], Object, Object> {
  private static final Logger LOGGER = LoggerFactory.getLogger(SessionDeltaProcessor.class);

  private final SessionDeltaSupplier.Wiring wiring;
  private final TurnEncoder encoder;
  private final RawEventValidator validator;
  private final DeadLetters deadLetters;
  private final JsonSerde<DeltaRecord> deltaSerde = JsonSerde.of(DeltaRecord.class);

  private ProcessorContext<Object, Object> context;
  private KeyValueStore<String, byte[]> states;
  private KeyValueStore<String, byte[]> bases;
  private long liveSessions;

  SessionDeltaProcessor(SessionDeltaSupplier.Wiring wiring) {
    this.wiring = wiring;
    this.encoder = new TurnEncoder(wiring.config().encoder());
    this.validator = new RawEventValidator(wiring.config().maxBodyBytes());
    this.deadLetters = new DeadLetters(wiring.metrics().registry(), wiring.deadLetterSink());
  }

  @Override
  public void init(ProcessorContext<Object, Object> context) {
    this.context = context;
    this.states = context.getStateStore(SessionStores.STATE);
    this.bases = context.getStateStore(SessionStores.BASES);
    try (KeyValueIterator<String, byte[]> all = states.all()) {
      while (all.hasNext()) {
        if (!SessionStateCodec.decode(all.next().value).bases().isEmpty()) {
          liveSessions++;
        }
      }
    }
    wiring.metrics().liveSessions().add(liveSessions);
    Duration interval = wiring.config().evictionInterval();
    context.schedule(interval, PunctuationType.WALL_CLOCK_TIME, this::evictIdleSessions);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    byte[] keyBytes = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
    RawEventValidator.Outcome outcome = validator.validate(record.key(), record.value());
    if (outcome.rejected() != null) {
      deadLetters.send(context, record, keyBytes, outcome.rejected());
      return;
    }
    ValidatedRequest request = outcome.accepted();
    String session = request.event().sessionKey();
    byte[] stored = states.get(session);
    SessionState state = stored == null ? SessionState.fresh() : SessionStateCodec.decode(stored);
    boolean wasLive = !state.bases().isEmpty();

    EncodedTurn turn =
        encoder.encode(
            state,
            request.body(),
            request.event().bodySha256(),
            request.utf8(),
            seq -> bases.get(SessionStores.baseKey(session, seq)),
            context.currentSystemTimeMs());

    if (turn.storeBody()) {
      bases.put(SessionStores.baseKey(session, turn.seq()), request.body());
    }
    for (long evicted : turn.evictedSeqs()) {
      bases.delete(SessionStores.baseKey(session, evicted));
    }
    states.put(session, SessionStateCodec.encode(turn.newState()));
    boolean isLive = !turn.newState().bases().isEmpty();
    if (isLive != wasLive) {
      adjustLive(isLive ? 1 : -1);
    }

    // Serialised here, once, so the byte count is exact and the sink does not serialise again.
    byte[] delta = deltaSerde.toBytes(DeltaRecords.of(request.event(), turn));
    context.forward(
        new Record<Object, Object>(DeltaRecord.key(session, turn.seq()), delta, record.timestamp()),
        wiring.deltaSink());
    wiring.metrics().recordTurn(turn, request.body().length, delta.length);
  }

  private void evictIdleSessions(long now) {
    long ttl = wiring.config().sessionTtl().toMillis();
    long retention = wiring.config().sessionSeqRetention().toMillis();
    List<KeyValue<String, SessionState>> idle = new ArrayList<>();
    try (KeyValueIterator<String, byte[]> all = states.all()) {
      while (all.hasNext()) {
        KeyValue<String, byte[]> entry = all.next();
        SessionState state = SessionStateCodec.decode(entry.value);
        long idleMs = now - state.lastSeenMs();
        if (idleMs > retention || (idleMs > ttl && !state.bases().isEmpty())) {
          idle.add(KeyValue.pair(entry.key, state));
        }
      }
    }
    int forgotten = 0;
    for (KeyValue<String, SessionState> entry : idle) {
      SessionState state = entry.value;
      for (BaseInfo base : state.bases()) {
        bases.delete(SessionStores.baseKey(entry.key, base.seq()));
      }
      if (!state.bases().isEmpty()) {
        adjustLive(-1);
      }
      if (now - state.lastSeenMs() > retention) {
        states.delete(entry.key);
        forgotten++;
      } else {
        states.put(entry.key, SessionStateCodec.encode(state.dormant()));
      }
    }
    if (!idle.isEmpty()) {
      wiring.metrics().sessionsEvicted().add(idle.size());
      LOGGER
          .atInfo()
          .setMessage("idle sessions evicted")
          .addKeyValue("evicted", idle.size())
          .addKeyValue("forgotten", forgotten)
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
