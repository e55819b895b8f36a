package io.prefixlog.streams.session;

import io.micrometer.core.instrument.Counter;
import io.prefixlog.core.delta.BaseBodies;
import io.prefixlog.core.delta.BaseInfo;
import io.prefixlog.core.delta.BaseLog;
import io.prefixlog.core.delta.BaseRecordCodec;
import io.prefixlog.core.delta.DeltaDecoder;
import io.prefixlog.core.delta.DeltaEncoder;
import io.prefixlog.core.delta.DeltaException;
import io.prefixlog.core.delta.EncodedDelta;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.EncoderSettings;
import io.prefixlog.core.delta.PrefixFingerprint;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.text.CodePointIndex;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaOp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's bases in the {@value SessionStores#BASES} store, kept as each session's {@link BaseLog}:
 * a record is the ops that rebuild a body from the record before it, or the whole body at the start
 * of the log, every {@code rebuildRecords} records and where ops would not pay. So the store's
 * changelog carries about what the deltas topic carries, not every body again, and a restore reads
 * deltas ({@code StreamThroughputBenchmark} and {@code RestoreBenchmark} measure both).
 *
 * <p>Reading a base costs nothing in the usual turn (the {@link BaseCache} holds the newest base of
 * a live session) and, after a restore or for a cold session, at most {@code rebuildRecords} record
 * reads and applications. A rebuilt base must match the SHA-256 its state holds, or it is not used:
 * the turn is then encoded against another base or as a keyframe, and the failure counted.
 */
final class BaseStore {
  private static final Logger LOGGER = LoggerFactory.getLogger(BaseStore.class);

  private final KeyValueStore<String, byte[]> store;
  private final BaseCache cache;
  private final DeltaEncoder encoder;
  private final int wholeEvery;
  private final double maxInsertedFraction;
  private final Counter failures;

  BaseStore(
      KeyValueStore<String, byte[]> store,
      BaseCache cache,
      EncoderSettings settings,
      int rebuildRecords,
      Counter failures) {
    this.store = store;
    this.cache = cache;
    this.encoder = new DeltaEncoder(settings.minMatchBytes());
    this.wholeEvery = rebuildRecords;
    this.maxInsertedFraction = settings.maxInsertedFraction();
    this.failures = failures;
  }

  /** The body of the session's base {@code seq}, or null when it cannot be rebuilt exactly. */
  byte[] load(String session, SessionState state, long seq) {
    BaseInfo base = find(state, seq);
    if (base == null) {
      return null;
    }
    String key = SessionStores.baseKey(session, state.chain(), seq);
    byte[] cached = cache.get(key, base.sha256());
    if (cached != null) {
      return cached;
    }
    List<BaseLog.Entry> path = state.log().pathTo(seq);
    if (path.isEmpty()) {
      return failed(session, seq, "not in the base log");
    }
    byte[] body = null;
    for (BaseLog.Entry entry : path) {
      byte[] record = store.get(SessionStores.baseKey(session, state.chain(), entry.seq()));
      if (record == null) {
        return failed(session, seq, "record " + entry.seq() + " missing");
      }
      try {
        BaseRecordCodec.Decoded decoded = BaseRecordCodec.decode(record);
        body = decoded.whole() ? decoded.body() : DeltaDecoder.apply(body, decoded.ops());
      } catch (IllegalArgumentException | DeltaException e) {
        return failed(session, seq, "record " + entry.seq() + ": " + e.getMessage());
      }
    }
    if (!Sha256.hex(body).equals(base.sha256())) {
      return failed(session, seq, "rebuilt body does not match its SHA-256");
    }
    cache.put(key, body, base.sha256(), null, null);
    return body;
  }

  /**
   * The session's stored bases as the encoder loads them: bodies by {@link #load}, and their
   * code-point indexes from the cache where a turn left one, else built and kept there.
   */
  BaseBodies bodiesOf(String session, SessionState state) {
    return new BaseBodies() {
      @Override
      public byte[] load(long seq) {
        return BaseStore.this.load(session, state, seq);
      }

      @Override
      public CodePointIndex indexOf(long seq, byte[] body) {
        String key = SessionStores.baseKey(session, state.chain(), seq);
        CodePointIndex index = cache.index(key, body);
        if (index == null) {
          index = CodePointIndex.of(body);
          BaseInfo base = find(state, seq);
          if (base != null) {
            cache.putIndex(key, body, base.sha256(), index);
          }
        }
        return index;
      }

      @Override
      public PrefixFingerprint.Known fingerprinted(long seq) {
        BaseInfo base = find(state, seq);
        return base == null
            ? null
            : cache.fingerprinted(
                SessionStores.baseKey(session, state.chain(), seq), base.sha256());
      }
    };
  }

  /**
   * What a turn leaves in the store, computed before anything is written.
   *
   * @param key the key its body is stored under, or null when the encoder does not keep it
   * @param record that key's record: the body's ops from the newest record, or the whole body
   * @param body the body, for the cache
   * @param bodySha256 its digest
   * @param index its code-point index, when the turn's delta came with one
   * @param states its fingerprint states, when the turn computed them
   * @param dropped the keys of the records no kept base needs any more
   * @param next the turn's new state with its base log
   */
  record Write(
      String key,
      byte[] record,
      byte[] body,
      String bodySha256,
      CodePointIndex index,
      long[] states,
      List<String> dropped,
      SessionState next) {
    Write {
      dropped = List.copyOf(dropped);
    }
  }

  /**
   * What the turn leaves behind: its body as the session's newest record when the encoder keeps it
   * as a base, and the deletion of every record no kept base needs any more. Reads, never writes:
   * {@link #write} does that once every part of the turn has been computed.
   *
   * @param before the state the turn was encoded against (its log is the one stored)
   * @param bodySha256 the body's verified digest
   */
  Write prepare(
      String session, SessionState before, EncodedTurn turn, byte[] body, String bodySha256) {
    BaseLog log = before.log();
    String chain = before.chain();
    String key = null;
    byte[] record = null;
    if (turn.storeBody()) {
      List<DeltaOp> ops = opsFromNewest(session, before, turn, body);
      key = SessionStores.baseKey(session, chain, turn.seq());
      record = ops == null ? BaseRecordCodec.whole(body) : BaseRecordCodec.ops(ops);
      log = log.append(new BaseLog.Entry(turn.seq(), ops == null));
    }
    List<Long> droppedSeqs = new ArrayList<>();
    BaseLog retained = log.retainFor(turn.newState().bases(), droppedSeqs);
    List<String> dropped = new ArrayList<>(droppedSeqs.size());
    for (long seq : droppedSeqs) {
      dropped.add(SessionStores.baseKey(session, chain, seq));
    }
    CodePointIndex index = turn.isKeyframe() ? null : turn.delta().targetIndex();
    return new Write(
        key,
        record,
        body,
        bodySha256,
        index,
        turn.fingerprintStates(),
        dropped,
        turn.newState().withLog(retained));
  }

  /** Writes what {@link #prepare} computed. */
  void write(Write write) {
    if (write.key() != null) {
      store.put(write.key(), write.record());
      cache.put(write.key(), write.body(), write.bodySha256(), write.index(), write.states());
    }
    write.dropped().forEach(this::delete);
  }

  /** Deletes every stored base of the state (idle eviction, a new chain). */
  void forget(String session, SessionState state) {
    if (state.log().rawBodies()) {
      // Written by an older version: each base is a whole body under its own key.
      for (BaseInfo base : state.bases()) {
        delete(
            state.chain().isEmpty()
                ? SessionStores.legacyBaseKey(session, base.seq())
                : SessionStores.baseKey(session, state.chain(), base.seq()));
      }
      return;
    }
    for (BaseLog.Entry entry : state.log().entries()) {
      delete(SessionStores.baseKey(session, state.chain(), entry.seq()));
    }
  }

  /** After an erasure deleted the session's records: its bodies leave the heap too. */
  void erased(String session) {
    cache.removeSession(session);
  }

  /**
   * The ops that rebuild {@code body} from the session's newest record, or null when the body is to
   * be stored whole: the log is empty, the turn is a keyframe (the deltas topic has the whole body
   * there too), {@code rebuildRecords} records follow the last whole one, or ops would carry more
   * than {@code maxInsertedFraction} of the body. Usually the turn's own delta serves: its base is
   * the newest record. Otherwise (a branch) the ops are computed and checked here.
   */
  private List<DeltaOp> opsFromNewest(
      String session, SessionState before, EncodedTurn turn, byte[] body) {
    BaseLog.Entry newest = before.log().newest();
    if (newest == null || turn.isKeyframe() || before.log().sinceWhole() + 1 >= wholeEvery) {
      return null;
    }
    if (turn.base().seq() == newest.seq()) {
      return turn.delta().ops();
    }
    byte[] parent = load(session, before, newest.seq());
    if (parent == null) {
      return null;
    }
    EncodedDelta delta = encoder.encode(parent, body);
    if (delta.insertedFraction() > maxInsertedFraction) {
      return null;
    }
    try {
      return Arrays.equals(DeltaDecoder.apply(parent, delta.ops(), body.length), body)
          ? delta.ops()
          : null;
    } catch (DeltaException e) {
      return null;
    }
  }

  private void delete(String key) {
    store.delete(key);
    cache.remove(key);
  }

  private byte[] failed(String session, long seq, String why) {
    failures.increment();
    LOGGER
        .atWarn()
        .setMessage("stored base could not be rebuilt; the turn is encoded without it")
        .addKeyValue("sessionKey", session)
        .addKeyValue("seq", seq)
        .addKeyValue("reason", why)
        .log();
    return null;
  }

  private static BaseInfo find(SessionState state, long seq) {
    for (BaseInfo base : state.bases()) {
      if (base.seq() == seq) {
        return base;
      }
    }
    return null;
  }
}
