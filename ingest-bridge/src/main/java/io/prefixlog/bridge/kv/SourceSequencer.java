package io.prefixlog.bridge.kv;

import io.prefixlog.core.kv.DecodeFailure;
import io.prefixlog.core.kv.DecodeResult;
import io.prefixlog.core.kv.DecodedBatch;
import io.prefixlog.core.kv.KvBatchDecoder;
import io.prefixlog.core.kv.KvDecodeLimits;
import io.prefixlog.core.kv.KvMarkers;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.kv.TokenIdsRemover;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 *   <li>Where a source starts. A source whose log {@code kv.events} already holds is {@linkplain
 *       #resume resumed}: the next number expected is the one after its last batch or gap marker,
 *       and its last batch is the anchor the engine is checked against. A source seen for the first
 *       time asks the replay endpoint for everything the engine still buffers (vLLM's PUB drops
 *       what it sends while nobody subscribes) and says what it cannot vouch for: a {@code restart}
 *       marker when the run is seen from 0, else a {@code gap} marker for 0..first−1, so that an
 *       index kept from long ago (its records expired from {@code kv.events}) is rebuilt.
 *   <li>{@linkplain #onConnected Each (re)connection} of the SUB socket asks the replay endpoint
 *       for what followed the last batch handled: what the engine sent while nobody listened.
 *   <li>In order ({@code seq == next}): published. Already handled ({@code seq < next}, e.g. after
 *       a replay overtook the live stream, or the same sequence number again): dropped and counted.
 *   <li>Ahead ({@code seq > next}): the replay endpoint is asked for what is missing (both reply
 *       layouts; the end marker is eight 0xff bytes or an empty payload); what it returns is
 *       handled like live batches (duplicates dropped); a first replayed number beyond the one
 *       wanted, a replay that times out, and an engine without a replay endpoint leave numbers
 *       unrecovered: a {@code gap} marker names them, then the live batch follows.
 *   <li>Engine restarts. vLLM numbers batches from 0 in every run and says nothing when it starts,
 *       so a run is recognised by its batches' engine time ({@code ts}, the scheduler's {@code
 *       time.time()}, microseconds apart): every replay starts at the anchor, the last batch
 *       handled whose engine time is known, rather than after it. An engine that answers with that
 *       number but another engine time, or with nothing at or after it (its newest number is
 *       lower), has restarted — also when its numbers are already above the old ones, which numbers
 *       alone cannot show. So has one whose live number goes below the last live one (ZMQ keeps a
 *       connection's order: only a new run goes back), whose live copy of a handled number carries
 *       another engine time, or whose first live number after a resume lies below the resume point
 *       and was never handled. Then a {@code restart} marker, and the new run is handled from 0
 *       (replayed as far as the engine still buffers it). Limits: when the anchor has left the
 *       engine's buffer (more batches since than it keeps), or without a replay endpoint, a
 *       restarted engine whose numbers went past the old ones cannot be told from the same engine
 *       having moved on: what it skipped is a {@code gap} (which clears the index too), not a
 *       {@code restart}; one that restarted and went exactly to the number expected next is taken
 *       for the same run.
 *   <li>A payload that does not decode, or keeps more than its {@link KvDecodeLimits} allow, is
 *       dead-lettered under its decoder reason and its sequence number is covered by a {@code gap}
 *       marker: its events are lost to the log, and the index must not pretend otherwise.
 *   <li>No dead letter holds a token id: a payload, and every frame of a badly framed message, is
 *       written as {@link TokenIdsRemover} leaves it (token id lists nil, nothing after a byte
 *       where it stops parsing), since token ids are the prompt.
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

  /**
   * The most of a payload (or of each frame) a dead letter copies: a letter for a frame of up to
   * {@code PREFIXLOG_KV_MAX_MESSAGE_BYTES} would otherwise hold it several times over on the heap
   * (the copy, its base64, the record's JSON) while the proxy in the same JVM needs it.
   */
  static final int MAX_LETTER_BYTES = 1 << 20;

  private static final Logger LOGGER = LoggerFactory.getLogger(SourceSequencer.class);

  private final KvSource source;
  private final byte[] key;
  private final ReplayClient replay;
  private final KvSink sink;
  private final KvBridgeMetrics metrics;
  private final LongSupplier clock;
  private final KvDecodeLimits limits;
  private final Queue<KvEventBatch> refused = new ConcurrentLinkedQueue<>();

  /** Whether {@link #next} means anything yet (a message, a connection or a resume came). */
  private boolean started;

  /** Until the first record of a source nothing in kv.events speaks for: a marker is owed. */
  private boolean firstContact = true;

  /** The last live number received in this run; -1 when none yet. */
  private long lastLive = -1;

  private long next;

  /** The last batch of this run whose engine time is known: where replays start; -1: none. */
  private long anchor = -1;

  private final EngineTimes engineTimes = new EngineTimes();

  /** A restart marker not yet handed over. */
  private boolean pendingRestart;

  /** Sequence numbers lost and not yet covered by a gap marker that was handed over; -1: none. */
  private long pendingFrom = -1;

  private long pendingTo = -1;

  /** A sequencer decoding within {@link KvDecodeLimits#DEFAULTS}. */
  SourceSequencer(
      KvSource source,
      ReplayClient replay,
      KvSink sink,
      KvBridgeMetrics metrics,
      LongSupplier clock) {
    this(source, replay, sink, metrics, clock, KvDecodeLimits.DEFAULTS);
  }

  /**
   * @param replay the source's replay endpoint, or {@code null} when it has none
   * @param clock epoch milliseconds
   * @param limits how much one batch may keep once decoded
   */
  SourceSequencer(
      KvSource source,
      ReplayClient replay,
      KvSink sink,
      KvBridgeMetrics metrics,
      LongSupplier clock,
      KvDecodeLimits limits) {
    this.limits = Objects.requireNonNull(limits, "limits");
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

  /**
   * Continues from what {@code kv.events} already holds for this source, before any message: no
   * first-contact marker, numbers below {@code point.next()} are not published again, and the
   * anchor is checked against the engine at the next replay.
   */
  void resume(ResumePoint point) {
    Objects.requireNonNull(point, "point");
    if (started) {
      throw new IllegalStateException("resume before the first message, not after");
    }
    started = true;
    firstContact = false;
    next = point.next();
    if (point.hasAnchor()) {
      anchor = point.anchorSeq();
      engineTimes.put(anchor, point.anchorEngineTs());
    }
    LOGGER
        .atInfo()
        .setMessage("resuming from kv.events")
        .addKeyValue("source", source.id())
        .addKeyValue("next", next)
        .addKeyValue("anchor", anchor)
        .log();
  }

  /**
   * The SUB socket (re)connected to the engine: asks the replay endpoint for what followed the last
   * batch handled (everything it buffers for a source seen for the first time), since the engine's
   * PUB dropped what it sent while nobody subscribed. Without a replay endpoint the live stream
   * alone tells what is missing.
   */
  void onConnected() {
    if (replay == null) {
      return;
    }
    started = true;
    catchUp(-1);
  }

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
    started = true;
    if (seq < next) {
      if (!isNewRun(seq, payload)) {
        metrics.duplicates.increment(); // a replay already brought it, or it was sent again
        lastLive = Math.max(lastLive, seq);
        return;
      }
      restart(seq, "engine restarted: the live sequence went back to another run");
      newRun();
    }
    if (seq > next) {
      closeGap(seq);
    }
    lastLive = seq;
    if (seq < next) {
      metrics.duplicates.increment(); // replay already brought it
      return;
    }
    accept(seq, payload);
  }

  /** Whether a live number already handled ({@code seq < next}) comes from a new engine run. */
  private boolean isNewRun(long seq, byte[] payload) {
    if (seq < lastLive) {
      return true; // one connection's messages keep their order: only a new run goes back
    }
    double handled = engineTimes.get(seq);
    if (!Double.isNaN(handled)) {
      double now = engineTs(seq, payload);
      return !Double.isNaN(now) && now != handled;
    }
    // Never handled in this run and no live number yet since a resume: below what kv.events holds.
    return lastLive < 0;
  }

  /** Forgets the run: the next batch expected is 0 of the new one. */
  private void newRun() {
    next = 0;
    anchor = -1;
    lastLive = -1;
    engineTimes.clear();
  }

  /** Replays what is missing below {@code liveSeq} when it can; what stays missing is a gap. */
  private void closeGap(long liveSeq) {
    if (replay != null) {
      catchUp(liveSeq);
    }
    if (next < liveSeq) {
      gap(liveSeq, next, liveSeq - 1);
      next = liveSeq;
    }
  }

  /**
   * Replays from the anchor (the last batch handled whose engine time is known), or from {@code
   * next} without one; a restarted engine found on the way gets a restart marker and its new run is
   * replayed from 0.
   *
   * @param liveSeq the live number that showed numbers were missing, or -1
   */
  private void catchUp(long liveSeq) {
    ReplayPass pass = replayFrom(anchor >= 0 ? anchor : next);
    if (pass.restartAt >= 0) {
      restart(
          pass.restartAt,
          pass.restartAt == anchor
              ? "engine restarted: its batch at the anchor is another one"
              : "engine restarted: it no longer has the anchor's number");
      newRun();
      replayFrom(0);
    }
    LOGGER
        .atDebug()
        .setMessage("caught up")
        .addKeyValue("source", source.id())
        .addKeyValue("next", next)
        .addKeyValue("liveSeq", liveSeq)
        .log();
  }

  private ReplayPass replayFrom(long from) {
    ReplayPass pass = new ReplayPass(from == anchor ? anchor : -1);
    boolean ended = replay.replay(from, pass::onReply);
    metrics.replay(ended ? "complete" : "timed_out");
    LOGGER
        .atInfo()
        .setMessage("replayed")
        .addKeyValue("source", source.id())
        .addKeyValue("from", from)
        .addKeyValue("reachedSeq", next - 1)
        .addKeyValue("complete", ended)
        .addKeyValue("restartAt", pass.restartAt)
        .log();
    return pass;
  }

  /** The replies of one replay. */
  private final class ReplayPass {
    /** The anchor to check the first reply against; -1 when there is none to check. */
    private final long check;

    /** The number at which the engine proved to be another run; -1 while it is not. */
    long restartAt = -1;

    private boolean first = true;

    ReplayPass(long check) {
      this.check = check;
    }

    /** One reply of the replay endpoint; {@code false} at the end marker or a restart found. */
    boolean onReply(List<byte[]> frames) {
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
        if (first && check >= 0) {
          restartAt = 0; // nothing at or after the anchor: the engine's newest number is lower
        }
        return false;
      }
      long seq = sequenceNumber(seqFrame);
      if (seq < 0) {
        deadLetterFrames(frames, BAD_REPLAY_FRAME, "replayed: " + describeSeqFrame(seqFrame));
        return true;
      }
      metrics.replayed.increment();
      if (first) {
        first = false;
        if (check >= 0 && seq == check && isAnotherRun(seq, payload)) {
          restartAt = seq;
          return false;
        }
        // seq > check: the anchor left the engine's buffer, the run cannot be checked
      }
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
  }

  /**
   * Whether batch {@code seq} carries another engine time than the one handled under its number.
   */
  private boolean isAnotherRun(long seq, byte[] payload) {
    double handled = engineTimes.get(seq);
    double now = engineTs(seq, payload);
    return !Double.isNaN(handled) && !Double.isNaN(now) && handled != now;
  }

  /** The engine time of a payload, or NaN when it does not decode or has none. */
  private double engineTs(long seq, byte[] payload) {
    DecodeResult result = KvBatchDecoder.decode(payload, source, seq, clock.getAsLong(), limits);
    if (result instanceof DecodedBatch decoded && decoded.batch().engineTs() != null) {
      return decoded.batch().engineTs();
    }
    return Double.NaN;
  }

  private void accept(long seq, byte[] payload) {
    if (firstContact) {
      // Nothing in kv.events speaks for this source: the index must not keep what it held.
      if (seq == 0) {
        restart(seq, "source seen from sequence number 0");
      } else {
        gap(seq, 0, seq - 1);
      }
    }
    next = seq + 1;
    DecodeResult result = KvBatchDecoder.decode(payload, source, seq, clock.getAsLong(), limits);
    if (result instanceof DecodedBatch decoded) {
      if (decoded.batch().engineTs() != null) {
        engineTimes.put(seq, decoded.batch().engineTs());
        anchor = seq;
      }
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
      TokenIdsRemover.Result kept = TokenIdsRemover.remove(payload, MAX_LETTER_BYTES);
      deadLetter(
          kept,
          failure.reason(),
          failure.detail() + " (source " + source.id() + ", seq " + seq + note(kept) + ")");
      gap(seq, seq, seq);
    }
  }

  private void gap(long seq, long from, long to) {
    firstContact = false;
    metrics.gaps.increment();
    metrics.missing.increment(to - from + 1);
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
    firstContact = false;
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
    deadLetter(value, null, null, reason, detail);
  }

  /** A letter for a payload: its copy without token ids, only its first bytes when too long. */
  private void deadLetter(TokenIdsRemover.Result kept, String reason, String detail) {
    if (kept.truncated()) {
      deadLetter(kept.bytes(), kept.length(), kept.sha256(), reason, detail);
    } else {
      deadLetter(kept.bytes(), null, null, reason, detail);
    }
  }

  /**
   * @param wholeLength the length of the whole value when {@code value} is only its first bytes,
   *     else {@code null}
   * @param wholeSha256 its SHA-256 then, else {@code null}
   */
  private void deadLetter(
      byte[] value, Long wholeLength, String wholeSha256, String reason, String detail) {
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
            Base64.getEncoder().encodeToString(value),
            wholeLength == null ? null : Boolean.TRUE,
            wholeLength,
            wholeSha256);
    if (!sink.offerDeadLetter(key, letter)) {
      metrics.queueDrop("dead_letter");
    }
  }

  /**
   * Dead-letters a message whose framing is wrong; the value is its frames as msgpack bins, each
   * without token ids (which frame is the payload cannot be told) and at most its first {@value
   * #MAX_LETTER_BYTES} bytes.
   */
  private void deadLetterFrames(List<byte[]> frames, String reason, String detail) {
    List<byte[]> kept = new ArrayList<>(frames.size());
    String note = "";
    boolean cut = false;
    for (byte[] frame : frames) {
      TokenIdsRemover.Result result = TokenIdsRemover.remove(frame, MAX_LETTER_BYTES);
      kept.add(result.bytes());
      if (result.changed()) {
        note = "; token_ids removed from frames, or bytes where they stop parsing";
      }
      cut |= result.truncated();
    }
    if (cut) {
      note += "; frames cut to their first " + MAX_LETTER_BYTES + " bytes";
    }
    deadLetter(framesAsMsgpack(kept), reason, detail + " (source " + source.id() + note + ")");
  }

  /** What a dead letter's copy of a payload leaves out, for its detail. */
  private static String note(TokenIdsRemover.Result kept) {
    String note = kept.removed() > 0 ? "; token_ids removed" : "";
    return kept.leftOutFrom() < 0
        ? note
        : note + "; bytes from " + kept.leftOutFrom() + " on left out (unparsed)";
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

  /**
   * The engine times of the last {@value #SIZE} numbers handled in this run, by number: what tells
   * a copy of a handled batch (a replay overlapping the live stream) from another run's batch.
   */
  private static final class EngineTimes {
    private static final int SIZE = 4096;
    private final long[] seqs = new long[SIZE];
    private final double[] times = new double[SIZE];

    EngineTimes() {
      clear();
    }

    void put(long seq, double engineTs) {
      int i = (int) (seq & (SIZE - 1));
      seqs[i] = seq;
      times[i] = engineTs;
    }

    /** The engine time handled under {@code seq}, or NaN when not (or no longer) known. */
    double get(long seq) {
      int i = (int) (seq & (SIZE - 1));
      return seqs[i] == seq ? times[i] : Double.NaN;
    }

    void clear() {
      java.util.Arrays.fill(seqs, -1);
    }
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
