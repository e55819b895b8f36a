package io.prefixlog.streams.kv;

import io.prefixlog.streams.state.StoreValues;
import java.io.DataInput;
import java.io.DataOutput;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * When each source of a task last sent a batch or a marker, so that a source silent for longer than
 * {@code PREFIXLOG_KV_SOURCE_EXPIRY} is expired: an engine that was retired sends nothing more, and
 * its blocks and statistics would otherwise stay in the stores and the compacted topics forever.
 *
 * <p>Silence is measured in stream time, on the records' timestamps, not on the wall clock: after
 * the app was down, or while a task reads a backlog, the wall clock would find every source silent
 * and expire those whose batches are still waiting to be read; stream time only moves with the
 * batches read, so a replay judges each source as it was. The price: a task all of whose sources
 * are silent has no stream time moving, and expires none of them until one sends again (the index
 * does not grow meanwhile either). A record ahead of the instance's clock moves stream time by at
 * most {@code PREFIXLOG_MAX_CLOCK_SKEW}, which the expiry must exceed.
 *
 * <p>Kept in memory, and in the block-index store under {@code ~kv-seen/<source>} (a version byte
 * {@value #VERSION} and the time in epoch ms) so that a restart or a move of the task does not
 * restart the count. The stored time is written again only once the source's last record is a
 * {@link #step} newer, not on every batch; loaded, it counts as a step later, so the expiry is
 * never early and at most a step late. Like the clear jobs' keys, such a key is a block of no
 * source, and a build from before it never reads it.
 *
 * <p>A store kept by a build from before these times holds sources it never saw send: once, a task
 * {@linkplain #discover discovers} them in steps, reading the store's keys in order from a cursor
 * kept under {@value #SCAN_KEY}, and counts each one's silence from the stream time it is found at.
 * A source that holds no block is not found so, and keeps its statistics until it sends.
 */
final class SourceSilence {
  static final String KEY_PREFIX = "~kv-seen/";
  static final String SCAN_KEY = "~kv-seen-scan";
  private static final String MARKS = "/~new/";
  private static final StringSerializer KEYS = new StringSerializer();
  private static final byte VERSION = 1;
  private static final Duration MAX_STEP = Duration.ofMinutes(1);

  /** A source silent for too long, and when it last sent. */
  record Silent(String source, long lastSeenMs) {}

  private final KeyValueStore<String, byte[]> store;
  private final long expiryMs;
  private final long step;

  /** Source → the time of its last record; and the stored time, if any. */
  private final Map<String, Long> lastSeen = new HashMap<>();

  private final Map<String, Long> stored = new HashMap<>();

  /** No source is due before this stream time (a lower bound: sources only get newer). */
  private long nextDue = Long.MAX_VALUE;

  /** Whether the discovery of the sources in the store is done; else its last key, or null. */
  private boolean discovered;

  private String scanCursor;

  /**
   * Loads the times kept in the task's store.
   *
   * @param expiry the silence after which a source is expired; zero: never (times are still kept,
   *     so that turning the expiry on later judges sources by their true silence)
   */
  SourceSilence(KeyValueStore<String, byte[]> store, Duration expiry) {
    this.store = store;
    this.expiryMs = expiry.toMillis();
    this.step =
        expiry.isZero() ? MAX_STEP.toMillis() : Math.min(MAX_STEP.toMillis(), expiryMs / 16);
    try (KeyValueIterator<String, byte[]> found = store.prefixScan(KEY_PREFIX, KEYS)) {
      while (found.hasNext()) {
        KeyValue<String, byte[]> entry = found.next();
        String source = entry.key.substring(KEY_PREFIX.length());
        long time = decode(entry.value);
        stored.put(source, time);
        remember(source, time + step);
      }
    }
    byte[] scan = store.get(SCAN_KEY);
    if (scan != null) {
      StoreValues.decode(
          scan,
          VERSION,
          "KV source discovery",
          in -> {
            discovered = in.readBoolean();
            scanCursor = StoreValues.readNullable(in, DataInput::readUTF);
            return null;
          });
    }
  }

  /** Whether sources in the store may still be unknown ({@link #discover} has work). */
  boolean discovering() {
    return !discovered;
  }

  /**
   * A step of the discovery: reads up to {@code budget} keys of the store from the cursor, and
   * counts every source of a block found there and not known as seen at stream time {@code nowMs}.
   * Waits for a stream time (none is known before the task's first record).
   *
   * @return the keys read
   */
  int discover(int budget, long nowMs) {
    if (discovered || nowMs < 0 || budget <= 0) {
      return 0;
    }
    int done = 0;
    boolean end;
    // '~' sorts after the characters of an endpoint: from there on are the jobs and the times.
    try (KeyValueIterator<String, byte[]> keys = store.range(scanCursor, "~")) {
      while (done < budget && keys.hasNext()) {
        String key = keys.next().key;
        if (key.equals(scanCursor)) {
          continue; // read by the step before
        }
        scanCursor = key;
        done++;
        int slash = key.lastIndexOf('/');
        if (slash <= 0 || key.startsWith("~") || key.contains(MARKS)) {
          continue; // not a block: a job, a time or a clear's mark
        }
        String source = key.substring(0, slash);
        if (KvBatchCheck.isHex(key.substring(slash + 1)) && !lastSeen.containsKey(source)) {
          seen(source, nowMs);
        }
      }
      end = !keys.hasNext();
    }
    discovered = end;
    store.put(
        SCAN_KEY,
        StoreValues.encode(
            VERSION,
            64,
            out -> {
              out.writeBoolean(discovered);
              StoreValues.writeNullable(out, scanCursor, DataOutput::writeUTF);
            }));
    return done;
  }

  /** The source sent a record of this time (in the transaction of that record). */
  void seen(String source, long timestampMs) {
    Long before = lastSeen.get(source);
    if (before != null && before >= timestampMs) {
      return; // an older record (stream time is a maximum; a record may be behind it)
    }
    remember(source, timestampMs);
    Long kept = stored.get(source);
    if (kept == null || timestampMs - kept >= step) {
      store.put(key(source), encode(timestampMs));
      stored.put(source, timestampMs);
    }
  }

  private void remember(String source, long time) {
    lastSeen.put(source, time);
    if (expiryMs > 0) {
      nextDue = Math.min(nextDue, time + expiryMs + 1);
    }
  }

  /**
   * The sources silent for longer than the expiry at stream time {@code nowMs}, in the order of
   * their ids; none when the expiry is off or stream time is unknown (negative).
   */
  List<Silent> due(long nowMs) {
    if (expiryMs == 0 || nowMs < 0 || nowMs < nextDue) {
      return List.of();
    }
    List<Silent> due = new ArrayList<>();
    long next = Long.MAX_VALUE;
    for (Map.Entry<String, Long> e : lastSeen.entrySet()) {
      if (nowMs - e.getValue() > expiryMs) {
        due.add(new Silent(e.getKey(), e.getValue()));
      } else {
        next = Math.min(next, e.getValue() + expiryMs + 1);
      }
    }
    nextDue = next;
    due.sort((a, b) -> a.source().compareTo(b.source()));
    return due;
  }

  /** The source is expired: forgotten until it sends again (in the expiry's transaction). */
  void forget(String source) {
    lastSeen.remove(source);
    if (stored.remove(source) != null) {
      store.delete(key(source));
    }
  }

  static String key(String source) {
    return KEY_PREFIX + source;
  }

  private static byte[] encode(long timeMs) {
    return ByteBuffer.allocate(1 + Long.BYTES).put(VERSION).putLong(timeMs).array();
  }

  private static long decode(byte[] value) {
    if (value.length != 1 + Long.BYTES || value[0] != VERSION) {
      throw new IllegalStateException(
          "unknown KV source silence record of "
              + value.length
              + " bytes, version "
              + (value.length == 0 ? "none" : Byte.toString(value[0])));
    }
    return ByteBuffer.wrap(value, 1, Long.BYTES).getLong();
  }
}
