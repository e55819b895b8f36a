package io.prefixlog.streams.kv;

import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.streams.state.StoreValues;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The running statistics of one source. Mutable, confined to the processor that loaded it.
 *
 * <ul>
 *   <li><b>Per-minute rates</b> are the counts of the last whole minute of engine time before the
 *       minute of the latest batch (a minute without batches counts 0); absent until one minute has
 *       passed. Engine time is the batch's {@code engine_ts}, the bridge's receive time for a
 *       marker; a clock that goes back (an engine restart) counts into the current minute.
 *   <li><b>Block lifetimes</b> (first store to the removal of the last copy; blocks cleared by
 *       AllBlocksCleared, a gap or a restart have no measured end and are not counted) go into a
 *       log-scale histogram of {@value #BUCKETS_PER_OCTAVE} buckets per doubling: a quantile is
 *       reported as the geometric middle of its bucket, within 2.2 % of the true value, in a few
 *       hundred bytes whatever the count.
 *   <li><b>Blocks stored per session</b> keeps at most {@value #MAX_SESSIONS} sessions: the one
 *       that stored least recently is dropped first, so the map stays bounded on a long-running
 *       engine.
 * </ul>
 */
final class SourceStatsState {
  static final int BUCKETS_PER_OCTAVE = 16;
  static final int MAX_SESSIONS = 1000;
  private static final int BUCKETS = 1 + BUCKETS_PER_OCTAVE * 64;
  private static final byte VERSION = 1;
  private static final long NONE = Long.MIN_VALUE;

  long ts;
  long seq;
  long residentBlocks;
  long residentTokens;
  long storesTotal;
  long removalsTotal;
  long clearsTotal;
  long gaps;
  long restarts;
  long minute = NONE;
  final long[] current = new long[3];
  boolean hasLastMinute;
  final long[] lastMinute = new long[3];
  long lifetimeCount;
  final long[] lifetimeBuckets = new long[BUCKETS];

  /** Insertion order = order of the last store. */
  final LinkedHashMap<String, Long> storesBySession = new LinkedHashMap<>();

  /** Changed since its record was last emitted. */
  boolean dirty;

  void apply(BatchSummary summary) {
    ts = summary.ts();
    seq = summary.seq();
    if (summary.marker() != null) {
      if (summary.marker().equals(KvEventBatch.MARKER_GAP)) {
        gaps++;
      } else {
        restarts++;
      }
    }
    if (summary.residentReset()) {
      residentBlocks = 0;
      residentTokens = 0;
    }
    residentBlocks = Math.max(0, residentBlocks + summary.residentBlocksChange());
    residentTokens = Math.max(0, residentTokens + summary.residentTokensChange());
    storesTotal += summary.stores();
    removalsTotal += summary.removals();
    clearsTotal += summary.clears();
    roll(Math.floorDiv(summary.engineMs(), 60_000L));
    current[0] += summary.stores();
    current[1] += summary.removals();
    current[2] += summary.clears();
    for (long lifetime : summary.lifetimesMs()) {
      lifetimeBuckets[bucket(lifetime)]++;
      lifetimeCount++;
    }
    summary.storesBySession().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              Long before = storesBySession.remove(e.getKey());
              storesBySession.put(e.getKey(), (before == null ? 0 : before) + e.getValue());
            });
    Iterator<String> oldest = storesBySession.keySet().iterator();
    while (storesBySession.size() > MAX_SESSIONS) {
      oldest.next();
      oldest.remove();
    }
  }

  private void roll(long batchMinute) {
    if (minute == NONE) {
      minute = batchMinute;
    } else if (batchMinute > minute) {
      if (batchMinute == minute + 1) {
        System.arraycopy(current, 0, lastMinute, 0, 3);
      } else {
        Arrays.fill(lastMinute, 0);
      }
      hasLastMinute = true;
      Arrays.fill(current, 0);
      minute = batchMinute;
    }
  }

  static int bucket(long valueMs) {
    if (valueMs <= 0) {
      return 0;
    }
    int b = 1 + (int) Math.floor(Math.log(valueMs) / Math.log(2) * BUCKETS_PER_OCTAVE);
    return Math.min(BUCKETS - 1, Math.max(1, b));
  }

  /** The geometric middle of bucket {@code b} (0 for bucket 0). */
  static long bucketValue(int b) {
    if (b == 0) {
      return 0;
    }
    return Math.round(Math.pow(2, (b - 1 + 0.5) / BUCKETS_PER_OCTAVE));
  }

  long quantile(double q) {
    long rank = Math.max(1, (long) Math.ceil(q * lifetimeCount));
    long seen = 0;
    for (int b = 0; b < BUCKETS; b++) {
      seen += lifetimeBuckets[b];
      if (seen >= rank) {
        return bucketValue(b);
      }
    }
    return bucketValue(BUCKETS - 1);
  }

  SourceStats toRecord(String source) {
    boolean lifetimes = lifetimeCount > 0;
    return new SourceStats(
        source,
        ts,
        seq,
        residentBlocks,
        residentTokens,
        storesTotal,
        removalsTotal,
        clearsTotal,
        hasLastMinute ? (double) lastMinute[0] : null,
        hasLastMinute ? (double) lastMinute[1] : null,
        hasLastMinute ? (double) lastMinute[2] : null,
        lifetimes ? lifetimeCount : null,
        lifetimes ? quantile(0.5) : null,
        lifetimes ? quantile(0.9) : null,
        lifetimes ? quantile(0.99) : null,
        gaps,
        restarts,
        storesBySession.isEmpty() ? null : storesBySession);
  }

  byte[] encode() {
    return StoreValues.encode(VERSION, 256, this::writeFields);
  }

  private void writeFields(DataOutputStream out) throws IOException {
    for (long v :
        new long[] {
          ts,
          seq,
          residentBlocks,
          residentTokens,
          storesTotal,
          removalsTotal,
          clearsTotal,
          gaps,
          restarts,
          minute,
          current[0],
          current[1],
          current[2],
          lastMinute[0],
          lastMinute[1],
          lastMinute[2],
          lifetimeCount
        }) {
      out.writeLong(v);
    }
    out.writeBoolean(hasLastMinute);
    out.writeBoolean(dirty);
    int used = 0;
    for (long count : lifetimeBuckets) {
      used += count == 0 ? 0 : 1;
    }
    out.writeShort(used);
    for (int b = 0; b < BUCKETS; b++) {
      if (lifetimeBuckets[b] != 0) {
        out.writeShort(b);
        out.writeLong(lifetimeBuckets[b]);
      }
    }
    out.writeInt(storesBySession.size());
    for (Map.Entry<String, Long> e : storesBySession.entrySet()) {
      out.writeUTF(e.getKey());
      out.writeLong(e.getValue());
    }
  }

  static SourceStatsState decode(byte[] value) {
    return StoreValues.decode(value, VERSION, "source stats state", SourceStatsState::readFields);
  }

  private static SourceStatsState readFields(DataInputStream in) throws IOException {
    SourceStatsState s = new SourceStatsState();
    s.ts = in.readLong();
    s.seq = in.readLong();
    s.residentBlocks = in.readLong();
    s.residentTokens = in.readLong();
    s.storesTotal = in.readLong();
    s.removalsTotal = in.readLong();
    s.clearsTotal = in.readLong();
    s.gaps = in.readLong();
    s.restarts = in.readLong();
    s.minute = in.readLong();
    for (int i = 0; i < 3; i++) {
      s.current[i] = in.readLong();
    }
    for (int i = 0; i < 3; i++) {
      s.lastMinute[i] = in.readLong();
    }
    s.lifetimeCount = in.readLong();
    s.hasLastMinute = in.readBoolean();
    s.dirty = in.readBoolean();
    int used = in.readUnsignedShort();
    for (int i = 0; i < used; i++) {
      int b = in.readUnsignedShort();
      s.lifetimeBuckets[b] = in.readLong();
    }
    int sessions = in.readInt();
    for (int i = 0; i < sessions; i++) {
      s.storesBySession.put(in.readUTF(), in.readLong());
    }
    return s;
  }
}
