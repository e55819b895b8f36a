package io.prefixlog.benchmarks.delta;

import io.prefixlog.benchmarks.delta.Workload.Session;
import io.prefixlog.cli.Version;
import io.prefixlog.core.delta.ChainIds;
import io.prefixlog.core.delta.DeltaDecoder;
import io.prefixlog.core.delta.DeltaException;
import io.prefixlog.core.delta.DeltaRecords;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.TurnEncoder;
import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.session.SessionKeyDeriver;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.tools.corpus.ChatRequests.ChatRequest;
import io.prefixlog.tools.replay.ReplayEvents;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;

/**
 * Runs a workload through {@link TurnEncoder} exactly as the stream app does (one {@link
 * SessionState} per session key, stored bodies kept and evicted as the encoder says), builds the
 * raw events as the replay tool sends them and the delta records the stream app emits, and checks
 * every turn by rebuilding it from its serialised record.
 */
final class PrefixlogReplay {
  static final String SECRET = SessionKeyDeriver.DEV_SECRET;

  private static final JsonSerde<DeltaRecord> SERDE = JsonSerde.of(DeltaRecord.class);

  private final SessionEncoder encoder;
  private final String model;

  /** Raw events exactly as the replay tool sends them. */
  private final ReplayEvents events = new ReplayEvents(SECRET, Version.current());

  PrefixlogReplay(SessionEncoder encoder, String model) {
    this.encoder = encoder;
    this.model = model;
  }

  /**
   * One turn's record and what it is made of.
   *
   * @param json the record's value bytes as produced
   * @param metadataJson the same record without {@code ops} and {@code body}: the per-record cost
   * @param v2Json the same record in the previous layout (schema version 2, no {@code chain}): what
   *     the chain id costs is the difference
   * @param keyedJson the record key's bytes followed by {@code json}: a batch holds both
   * @param v2KeyedJson the version 2 key ({@code session_key/seq}) followed by {@code v2Json}
   * @param baseGap seq minus base_seq (1 = the previous turn), 0 for a keyframe
   * @param insertedBytes body bytes carried by inserts
   * @param rebuilt whether the record rebuilt the body byte for byte, sha256 included
   */
  record Turn(
      int session,
      long seq,
      int bodyLen,
      byte[] json,
      byte[] metadataJson,
      byte[] v2Json,
      byte[] keyedJson,
      byte[] v2KeyedJson,
      String keyframeReason,
      int copies,
      int inserts,
      long insertedBytes,
      long baseGap,
      int chainDepth,
      boolean rebuilt) {
    boolean keyframe() {
      return keyframeReason != null;
    }
  }

  /** Encodes every turn of every session; turns are returned per session, in turn order. */
  List<List<Turn>> run(Workload workload, long startMs) {
    Random random = new Random(42);
    long clockMs = startMs;
    List<List<Turn>> out = new ArrayList<>();
    for (int s = 0; s < workload.sessions().size(); s++) {
      Session session = workload.sessions().get(s);
      SessionKey key = events.sessionKey(session.conversationId());
      // One chain per session, as the stream app starts it: 8 hex digits derived from the turn.
      SessionState state =
          SessionState.newChain(ChainIds.of(session.conversationId(), clockMs, "replay"));
      Map<Long, byte[]> stored = new HashMap<>();
      Map<Long, byte[]> rebuiltBodies = new HashMap<>();
      List<Turn> turns = new ArrayList<>();
      for (byte[] body : session.bodies()) {
        clockMs += 1 + random.nextInt(2_000);
        RawRequestEvent raw =
            events.event(
                new ChatRequest(session.conversationId(), turns.size() + 1, body),
                key,
                randomUuid(random),
                clockMs);
        boolean utf8 = BodyEncoding.UTF_8.wireName().equals(raw.bodyEncoding());
        EncodedTurn turn = encoder.encode(state, body, utf8, stored::get, clockMs);
        state = turn.newState();
        if (turn.storeBody()) {
          stored.put(turn.seq(), body);
        }
        turn.evictedSeqs().forEach(stored::remove);
        DeltaRecord record = DeltaRecords.of(raw, turn);
        byte[] json = SERDE.toBytes(record);
        boolean rebuilt = rebuild(SERDE.fromBytes(json), body, rebuiltBodies);
        turns.add(describe(s, record, json, rebuilt));
      }
      out.add(turns);
    }
    return out;
  }

  /** A version-4 UUID from the seeded generator, so that runs are reproducible. */
  static String randomUuid(Random random) {
    long high = (random.nextLong() & ~0xF000L) | 0x4000L;
    long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(high, low).toString();
  }

  /** Rebuilds the turn the way a reader does: from the record alone and the rebuilt base. */
  private static boolean rebuild(DeltaRecord record, byte[] expected, Map<Long, byte[]> rebuilt) {
    byte[] bytes;
    if (record.isKeyframe()) {
      Optional<BodyEncoding> encoding = BodyEncoding.fromWireName(record.bodyEncoding());
      if (encoding.isEmpty() || record.body() == null) {
        return false;
      }
      bytes = encoding.get().decode(record.body());
    } else {
      byte[] base = rebuilt.get(record.baseSeq());
      if (base == null || !Sha256.hex(base).equals(record.baseSha256())) {
        return false;
      }
      try {
        bytes = DeltaDecoder.apply(base, record.ops());
      } catch (DeltaException e) {
        return false;
      }
    }
    rebuilt.put(record.seq(), bytes);
    return Arrays.equals(bytes, expected)
        && record.bodyLen() == bytes.length
        && Sha256.hex(bytes).equals(record.bodySha256());
  }

  private static Turn describe(int session, DeltaRecord record, byte[] json, boolean rebuilt) {
    int copies = 0;
    int inserts = 0;
    long insertedBytes = 0;
    if (record.ops() != null) {
      for (DeltaOp op : record.ops()) {
        if (op instanceof DeltaOp.Insert insert) {
          inserts++;
          insertedBytes += insert.text().getBytes(StandardCharsets.UTF_8).length;
        } else {
          copies++;
        }
      }
    }
    return new Turn(
        session,
        record.seq(),
        Math.toIntExact(record.bodyLen()),
        json,
        SERDE.toBytes(withoutPayload(record)),
        SERDE.toBytes(asVersion2(record)),
        concat(record.key(), json),
        concat(asVersion2(record).key(), SERDE.toBytes(asVersion2(record))),
        record.keyframeReason(),
        copies,
        inserts,
        insertedBytes,
        record.isKeyframe() ? 0 : record.seq() - record.baseSeq(),
        record.chainDepth(),
        rebuilt);
  }

  private static byte[] concat(String key, byte[] value) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    byte[] out = java.util.Arrays.copyOf(k, k.length + value.length);
    System.arraycopy(value, 0, out, k.length, value.length);
    return out;
  }

  /** The record as schema version 2 wrote it: no chain. */
  static DeltaRecord asVersion2(DeltaRecord r) {
    return r.withLayout(DeltaRecord.SCHEMA_VERSION_V2, null);
  }

  /** The record with {@code ops} and {@code body} left out: identity, hashes and bookkeeping. */
  static DeltaRecord withoutPayload(DeltaRecord r) {
    return new DeltaRecord(
        r.schemaVersion(),
        r.sessionKey(),
        r.seq(),
        r.chain(),
        r.requestId(),
        r.ts(),
        r.model(),
        r.sessionKeySource(),
        r.clientAddr(),
        r.userAgent(),
        r.headers(),
        r.method(),
        r.path(),
        r.kind(),
        r.keyframeReason(),
        null,
        r.bodyEncoding(),
        r.baseSeq(),
        r.baseSha256(),
        null,
        r.chainDepth(),
        r.bodyLen(),
        r.bodySha256(),
        r.prefixLen(),
        r.truncated(),
        r.promptTokens(),
        r.cachedTokens(),
        r.prefixCacheHitRate(),
        r.response());
  }
}
