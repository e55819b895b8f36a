package io.prefixlog.bridge.kv;

import io.prefixlog.core.kv.DecodeFailure;
import io.prefixlog.core.kv.DecodeResult;
import io.prefixlog.core.kv.DecodedBatch;
import io.prefixlog.core.kv.KvBatchDecoder;
import io.prefixlog.core.kv.KvMarkers;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sequence logic of one source, with no socket in it: fed the live messages of the source's SUB
 * socket (and, through a {@link ReplayClient}, the replies of its replay endpoint), it hands every
 * engine batch, in sequence order, and every marker to a {@link KvSink}. Used by one thread.
 *
 * <ul>
 *   <li>A live message is {@code [topic, seq (8 bytes, big-endian), payload]}. Any other shape, or
 *       a sequence number of 2^63 or more, is dead-lettered ({@code bad_frame_count}, {@code
 *       bad_seq_frame}) with the frames as a msgpack array of {@code bin}, and has no effect on the
 *       sequence.
 *   <li>The first message of a source after the bridge starts: the bridge does not know what came
 *       before, so it says so: a {@code restart} marker when the sequence number is 0 (the engine
 *       just started), else a {@code gap} marker for 0..seq−1. The index of that source is then
 *       rebuilt from what follows instead of trusting state from before the bridge started.
 *   <li>In order ({@code seq == next}): published. Already handled ({@code seq < next}, e.g. after
 *       a replay overtook the live stream, or the same sequence number again): dropped and counted.
 *   <li>Ahead ({@code seq > next}): the engine's replay endpoint is asked for everything from
 *       {@code next} (both reply layouts; the end marker is eight 0xff bytes or an empty payload);
 *       what it returns is handled like live batches (duplicates dropped); a first replayed number
 *       beyond the one wanted, a replay that times out, and an engine without a replay endpoint
 *       leave numbers unrecovered: a {@code gap} marker names them, then the live batch follows.
 *   <li>Backwards (a live {@code seq} below the previous live one): the engine restarted. A {@code
 *       restart} marker, then the new run is handled from 0 (replaying 0..seq−1 when it can).
 *   <li>A payload that does not decode is dead-lettered under its decoder reason and its sequence
 *       number is covered by a {@code gap} marker: its events are lost to the log, and the index
 *       must not pretend otherwise.
 *   <li>A record the hand-off queue refuses (full), or that Kafka later refuses, is not silently
 *       lost: a {@code gap} marker covering it (or the {@code restart} marker it was) is handed
 *       over before the next record of the source.
 * </ul>
 */
final class SourceSequencer {
  static final String PRODUCER = "ingest-bridge";
  static final String BAD_FRAME_COUNT = "bad_frame_count";
  static final String BAD_SEQ_FRAME = "bad_seq_frame";
  static final String BAD_REPLAY_FRAME = "bad_replay_frame";

  private static final Logger LOGGER = LoggerFactory.getLogger(SourceSequencer.class);

  private final KvSource source;
  private final byte[] key;
  private final ReplayClient replay;
  private final KvSink sink;
  private final KvBridgeMetrics metrics;
  private final LongSupplier clock;
  private final Queue<KvEventBatch> refused = new ConcurrentLinkedQueue<>();

  private boolean started;
  private long lastLive = -1;
  private long next;

  /** A restart marker not yet handed over. */
  private boolean pendingRestart;

  /** Sequence numbers lost and not yet covered by a gap marker that was handed over; -1: none. */
  private long pendingFrom = -1;

  private long pendingTo = -1;

  /**
   * @param replay the source's replay endpoint, or {@code null} when it has none
   * @param clock epoch milliseconds
   */
  SourceSequencer(
      KvSource source,
      ReplayClient replay,
      KvSink sink,
      KvBridgeMetrics metrics,
      LongSupplier clock) {
    this.source = Objects.requireNonNull(source, "source");
    this.key = source.id().getBytes(StandardCharsets.UTF_8);
    this.replay = replay;
    this.sink = Objects.requireNonNull(sink, "sink");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  KvSource source() {
    return source;
  }

  /** The next sequence number expected; meaningful once a message was seen. */
  long next() {
    return next;
  }

  /** Continues from what {@code kv.events} already holds for this source; before any message. */
  void resume(ResumePoint point) {}

  /** The SUB socket (re)connected to the engine: catch up through the replay endpoint. */
  void onConnected() {}

  /** One live multipart message from the source's SUB socket. */
  void onMessage(List<byte[]> frames) {
    metrics.messages.increment();
    if (frames.size() != 3) {
      deadLetterFrames(
          frames,
          BAD_FRAME_COUNT,
          "a message of " + describe(frames) + ", expected 3: topic, seq, payload");
      return;
    }
    long seq = sequenceNumber(frames.get(1));
    if (seq < 0) {
      deadLetterFrames(frames, BAD_SEQ_FRAME, describeSeqFrame(frames.get(1)));
      return;
    }
    onLive(seq, frames.get(2));
  }

  private void onLive(long seq, byte[] payload) {
    if (!started) {
      started = true;
      lastLive = seq;
      if (seq == 0) {
        restart(seq, "source started at sequence number 0");
      } else {
        gap(seq, 0, seq - 1);
      }
      accept(seq, payload);
      return;
    }
    if (seq < lastLive) {
      lastLive = seq;
      restart(seq, "engine restarted: the sequence went backwards");
      next = 0;
    } else if (seq == lastLive) {
      metrics.duplicates.increment();
      return;
    } else {
      lastLive = seq;
    }
    if (seq > next) {
      closeGap(seq);
    }
    if (seq < next) {
      metrics.duplicates.increment(); // replay already brought it
      return;
    }
    accept(seq, payload);
  }

  /** Replays from {@code next} when it can; what stays missing below {@code liveSeq} is a gap. */
  private void closeGap(long liveSeq) {
    if (replay != null) {
      long wanted = next;
      boolean ended = replay.replay(wanted, this::onReplayMessage);
      metrics.replay(ended ? "complete" : "timed_out");
      LOGGER
          .atInfo()
          .setMessage("replayed")
          .addKeyValue("source", source.id())
          .addKeyValue("from", wanted)
          .addKeyValue("reachedSeq", next - 1)
          .addKeyValue("complete", ended)
          .log();
    }
    if (next < liveSeq) {
      gap(liveSeq, next, liveSeq - 1);
      next = liveSeq;
    }
  }

  /** One reply of the replay endpoint; {@code false} at the end marker. */
  private boolean onReplayMessage(List<byte[]> frames) {
    int n = frames.size();
    if ((n != 3 && n != 4) || frames.get(0).length != 0) {
      deadLetterFrames(
          frames,
          BAD_REPLAY_FRAME,
          "a replay reply of "
              + describe(frames)
              + ", expected [empty, topic, seq, payload] or [empty, seq, payload]");
      return true;
    }
    byte[] seqFrame = frames.get(n - 2);
    byte[] payload = frames.get(n - 1);
    if (isEndMarker(seqFrame) || payload.length == 0) {
      return false;
    }
    long seq = sequenceNumber(seqFrame);
    if (seq < 0) {
      deadLetterFrames(frames, BAD_REPLAY_FRAME, "replayed: " + describeSeqFrame(seqFrame));
      return true;
    }
    metrics.replayed.increment();
    if (seq < next) {
      metrics.duplicates.increment();
      return true;
    }
    if (seq > next) {
      gap(seq, next, seq - 1); // older than the engine still buffers, or a hole in its buffer
    }
    accept(seq, payload);
    return true;
  }

  private void accept(long seq, byte[] payload) {
    next = seq + 1;
    DecodeResult result = KvBatchDecoder.decode(payload, source, seq, clock.getAsLong());
    if (result instanceof DecodedBatch decoded) {
      if (decoded.isEmpty()) {
        metrics.emptyBatches.increment();
        return;
      }
      if (publish(decoded.batch())) {
        metrics.batches.increment();
        for (KvEvent event : decoded.batch().events()) {
          metrics.event(event.type());
        }
      }
    } else {
      DecodeFailure failure = (DecodeFailure) result;
      deadLetter(
          payload,
          failure.reason(),
          failure.detail() + " (source " + source.id() + ", seq " + seq + ")");
      gap(seq, seq, seq);
    }
  }

  private void gap(long seq, long from, long to) {
    metrics.gaps.increment();
    metrics.missing.add(to - from + 1);
    LOGGER
        .atWarn()
        .setMessage("sequence numbers lost")
        .addKeyValue("source", source.id())
        .addKeyValue("from", from)
        .addKeyValue("to", to)
        .addKeyValue("seq", seq)
        .log();
    publish(KvMarkers.gap(source, seq, from, to, clock.getAsLong()));
  }

  private void restart(long seq, String why) {
    metrics.restarts.increment();
    LOGGER
        .atWarn()
        .setMessage(why)
        .addKeyValue("source", source.id())
        .addKeyValue("seq", seq)
        .log();
    publish(KvMarkers.restart(source, seq, clock.getAsLong()));
  }

  /**
   * Hands a record over, after any marker still owed for records lost earlier; a refused record is
   * remembered as owed.
   */
  private boolean publish(KvEventBatch record) {
    for (KvEventBatch lost = refused.poll(); lost != null; lost = refused.poll()) {
      owe(lost);
    }
    long now = clock.getAsLong();
    if (pendingRestart) {
      if (!sink.offer(KvMarkers.restart(source, record.seq(), now), refused::add)) {
        return dropped(record);
      }
      pendingRestart = false;
    }
    if (pendingFrom >= 0) {
      KvEventBatch owed = KvMarkers.gap(source, record.seq(), pendingFrom, pendingTo, now);
      if (!sink.offer(owed, refused::add)) {
        return dropped(record);
      }
      pendingFrom = -1;
      pendingTo = -1;
    }
    if (!sink.offer(record, refused::add)) {
      return dropped(record);
    }
    return true;
  }

  private boolean dropped(KvEventBatch record) {
    metrics.queueDrop(record.marker() == null ? "batch" : "marker");
    owe(record);
    return false;
  }

  /** Remembers that {@code lost} never reached Kafka: a marker is owed before the next record. */
  private void owe(KvEventBatch lost) {
    if (KvEventBatch.MARKER_RESTART.equals(lost.marker())) {
      pendingRestart = true;
      pendingFrom = -1; // the restart clears everything before it anyway
      pendingTo = -1;
    } else if (KvEventBatch.MARKER_GAP.equals(lost.marker())) {
      owe(lost.missingFrom(), lost.missingTo());
    } else {
      owe(lost.seq(), lost.seq());
    }
  }

  private void owe(long from, long to) {
    pendingFrom = pendingFrom < 0 ? from : Math.min(pendingFrom, from);
    pendingTo = Math.max(pendingTo, to);
  }

  private void deadLetter(byte[] value, String reason, String detail) {
    metrics.deadLetter(reason);
    LOGGER
        .atWarn()
        .setMessage("input dead-lettered")
        .addKeyValue("source", source.id())
        .addKeyValue("reason", reason)
        .addKeyValue("detail", detail)
        .log();
    DeadLetter letter =
        new DeadLetter(
            DeadLetter.SCHEMA_VERSION,
            clock.getAsLong(),
            PRODUCER,
            null,
            null,
            null,
            reason,
            detail,
            Base64.getEncoder().encodeToString(key),
            Base64.getEncoder().encodeToString(value));
    if (!sink.offerDeadLetter(key, letter)) {
      metrics.queueDrop("dead_letter");
    }
  }

  /** Dead-letters a message whose framing is wrong; the value is its frames as msgpack bins. */
  private void deadLetterFrames(List<byte[]> frames, String reason, String detail) {
    deadLetter(framesAsMsgpack(frames), reason, detail + " (source " + source.id() + ")");
  }

  static byte[] framesAsMsgpack(List<byte[]> frames) {
    try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
      packer.packArrayHeader(frames.size());
      for (byte[] frame : frames) {
        packer.packBinaryHeader(frame.length);
        packer.writePayload(frame);
      }
      return packer.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot pack frames in memory", e);
    }
  }

  private static String describe(List<byte[]> frames) {
    StringBuilder out = new StringBuilder().append(frames.size()).append(" frame(s) (");
    for (int i = 0; i < frames.size() && i < 8; i++) {
      out.append(i == 0 ? "" : ", ").append(frames.get(i).length);
    }
    return out.append(frames.size() > 8 ? ", … bytes)" : " bytes)").toString();
  }

  private static String describeSeqFrame(byte[] frame) {
    return frame.length != 8
        ? "a seq frame of " + frame.length + " bytes, expected 8 (big-endian)"
        : "a seq of 2^63 or more";
  }

  /** An 8-byte big-endian sequence number below 2^63, or -1. */
  static long sequenceNumber(byte[] frame) {
    if (frame.length != 8 || frame[0] < 0) {
      return -1;
    }
    long seq = 0;
    for (byte b : frame) {
      seq = (seq << 8) | (b & 0xffL);
    }
    return seq;
  }

  /** vLLM's END_SEQ: (-1).to_bytes(8, "big", signed=True). */
  static boolean isEndMarker(byte[] frame) {
    if (frame.length != 8) {
      return false;
    }
    for (byte b : frame) {
      if (b != (byte) 0xff) {
        return false;
      }
    }
    return true;
  }
}
