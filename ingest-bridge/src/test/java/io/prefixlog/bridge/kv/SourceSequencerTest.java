package io.prefixlog.bridge.kv;

import static io.prefixlog.bridge.kv.Frames.bytes;
import static io.prefixlog.bridge.kv.Frames.emptyBatch;
import static io.prefixlog.bridge.kv.Frames.endWithTopic;
import static io.prefixlog.bridge.kv.Frames.endWithoutTopic;
import static io.prefixlog.bridge.kv.Frames.live;
import static io.prefixlog.bridge.kv.Frames.replyWithTopic;
import static io.prefixlog.bridge.kv.Frames.replyWithoutTopic;
import static io.prefixlog.bridge.kv.Frames.seq;
import static io.prefixlog.bridge.kv.Frames.storedBatch;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;

/**
 * The sequence logic fed frames directly: what it publishes (batches by seq, markers with their
 * ranges), what it dead-letters, what it asks the replay endpoint for, and what it counts.
 */
class SourceSequencerTest {
  private static final String TOPIC = "kv";
  private static final KvSource SOURCE = KvSource.of("tcp://10.0.3.17:5557", 0, TOPIC);

  private final RecordingSink sink = new RecordingSink();
  private final KvBridgeMetrics metrics = new KvBridgeMetrics(new SimpleMeterRegistry());

  @Test
  void shouldPublishBatchesInOrderAfterARestartMarkerWhenTheFirstSeqIsZero() {
    // Given
    SourceSequencer sequencer = sequencer(null);

    // When
    sendLive(sequencer, 0, 1, 2);

    // Then: the bridge cannot vouch for anything before its first message
    assertThat(sink.log()).containsExactly("restart @0", "batch 0", "batch 1", "batch 2");
    assertThat(sink.batch(1).events().get(0).blockHashes()).containsExactly("0000000000000001");
    assertThat(counter(KvBridgeMetrics.BATCHES)).isEqualTo(3);
    assertThat(counter(KvBridgeMetrics.RESTARTS)).isEqualTo(1);
    assertThat(Meters.count(metrics.registry(), KvBridgeMetrics.EVENTS, "type", "BlockStored"))
        .isEqualTo(3);
  }

  @Test
  void shouldMarkWhatCameBeforeTheFirstMessageAsAGap() {
    // Given
    SourceSequencer sequencer = sequencer(null);

    // When
    sendLive(sequencer, 5, 6);

    // Then
    assertThat(sink.log()).containsExactly("gap 0..4 @5", "batch 5", "batch 6");
  }

  @Test
  void shouldDropTheSameSeqSentAgain() {
    // Given
    SourceSequencer sequencer = sequencer(null);

    // When: a publisher re-sending its last batch (the tests' slow-joiner probe)
    sendLive(sequencer, 0, 0, 0, 1);

    // Then
    assertThat(sink.log()).containsExactly("restart @0", "batch 0", "batch 1");
    assertThat(counter(KvBridgeMetrics.DUPLICATES)).isEqualTo(2);
  }

  @Test
  void shouldRecoverADroppedRangeByReplayWithTopicFrames() {
    // Given: vLLM >= 0.26 replies [b"", topic, seq, payload], ending with an empty topic and
    // END_SEQ
    FakeReplay replay =
        new FakeReplay(
            replyWithTopic(TOPIC, 2, storedBatch(2)),
            replyWithTopic(TOPIC, 3, storedBatch(3)),
            replyWithTopic(TOPIC, 4, storedBatch(4)),
            replyWithTopic(TOPIC, 5, storedBatch(5)),
            endWithTopic());
    SourceSequencer sequencer = sequencer(replay);

    // When: 2..4 never arrive live
    sendLive(sequencer, 0, 1, 5, 6);

    // Then: no gap; live 5 came again through replay and is dropped
    assertThat(replay.requests).containsExactly(1L); // from the anchor, batch 1
    assertThat(sink.log())
        .containsExactly(
            "restart @0",
            "batch 0",
            "batch 1",
            "batch 2",
            "batch 3",
            "batch 4",
            "batch 5",
            "batch 6");
    assertThat(Meters.count(metrics.registry(), KvBridgeMetrics.REPLAYS, "outcome", "complete"))
        .isEqualTo(1);
    assertThat(counter(KvBridgeMetrics.REPLAYED)).isEqualTo(4);
    assertThat(counter(KvBridgeMetrics.DUPLICATES)).isEqualTo(1);
    assertThat(counter(KvBridgeMetrics.GAPS)).isZero();
  }

  @Test
  void shouldRecoverADroppedRangeByReplayWithoutTopicFrames() {
    // Given: vLLM before 0.26 replies [b"", seq, payload] and ends with [b"", END_SEQ, b""]
    FakeReplay replay =
        new FakeReplay(
            replyWithoutTopic(1, storedBatch(1)),
            replyWithoutTopic(2, storedBatch(2)),
            endWithoutTopic());
    SourceSequencer sequencer = sequencer(replay);

    // When
    sendLive(sequencer, 0, 3);

    // Then: the live 3 follows the replayed ones
    assertThat(sink.log())
        .containsExactly("restart @0", "batch 0", "batch 1", "batch 2", "batch 3");
  }

  @Test
  void shouldDropReplayedAndLiveBatchesAtOrBelowTheLastSeq() {
    // Given: the replay overlaps what was had, and runs past the live batch that triggered it
    FakeReplay replay =
        new FakeReplay(
            replyWithTopic(TOPIC, 1, storedBatch(1)),
            replyWithTopic(TOPIC, 2, storedBatch(2)),
            replyWithTopic(TOPIC, 3, storedBatch(3)),
            replyWithTopic(TOPIC, 4, storedBatch(4)),
            replyWithTopic(TOPIC, 5, storedBatch(5)),
            endWithTopic());
    SourceSequencer sequencer = sequencer(replay);

    // When: live 3 triggers the replay, then 4 and 5 arrive live as well
    sendLive(sequencer, 0, 1, 3, 4, 5, 6);

    // Then
    assertThat(sink.log())
        .containsExactly(
            "restart @0",
            "batch 0",
            "batch 1",
            "batch 2",
            "batch 3",
            "batch 4",
            "batch 5",
            "batch 6");
    assertThat(counter(KvBridgeMetrics.DUPLICATES)).isEqualTo(4); // replayed 1; live 3, 4, 5
  }

  @Test
  void shouldMarkAGapWhenTheFirstReplayedSeqIsLaterThanWanted() {
    // Given: the engine's buffer no longer holds 3..6
    FakeReplay replay =
        new FakeReplay(
            replyWithTopic(TOPIC, 7, storedBatch(7)),
            replyWithTopic(TOPIC, 8, storedBatch(8)),
            replyWithTopic(TOPIC, 9, storedBatch(9)),
            replyWithTopic(TOPIC, 10, storedBatch(10)),
            endWithTopic());
    SourceSequencer sequencer = sequencer(replay);

    // When
    sendLive(sequencer, 0, 1, 2, 10);

    // Then
    assertThat(replay.requests).containsExactly(2L); // from the anchor, batch 2
    assertThat(sink.log())
        .containsExactly(
            "restart @0",
            "batch 0",
            "batch 1",
            "batch 2",
            "gap 3..6 @7",
            "batch 7",
            "batch 8",
            "batch 9",
            "batch 10");
    assertThat(counter(KvBridgeMetrics.MISSING)).isEqualTo(4);
  }

  @Test
  void shouldMarkWhatAReplayThatTimedOutDidNotBring() {
    // Given: two replies, then nothing until the replay's time is up
    FakeReplay replay =
        new FakeReplay(
            replyWithTopic(TOPIC, 1, storedBatch(1)), replyWithTopic(TOPIC, 2, storedBatch(2)));
    SourceSequencer sequencer = sequencer(replay);

    // When
    sendLive(sequencer, 0, 6, 7);

    // Then
    assertThat(sink.log())
        .containsExactly(
            "restart @0", "batch 0", "batch 1", "batch 2", "gap 3..5 @6", "batch 6", "batch 7");
    assertThat(Meters.count(metrics.registry(), KvBridgeMetrics.REPLAYS, "outcome", "timed_out"))
        .isEqualTo(1);
  }

  @Test
  void shouldMarkAGapAtOnceWithoutAReplayEndpoint() {
    // Given
    SourceSequencer sequencer = sequencer(null);

    // When
    sendLive(sequencer, 0, 1, 4, 5);

    // Then
    assertThat(sink.log())
        .containsExactly("restart @0", "batch 0", "batch 1", "gap 2..3 @4", "batch 4", "batch 5");
    assertThat(counter(KvBridgeMetrics.GAPS)).isEqualTo(1);
    assertThat(counter(KvBridgeMetrics.MISSING)).isEqualTo(2);
  }

  @Test
  void shouldTreatAnEmptyReplayedPayloadAsTheEnd() {
    // Given: vLLM's example subscriber also ends a replay on an empty payload
    FakeReplay replay =
        new FakeReplay(
            replyWithTopic(TOPIC, 1, storedBatch(1)),
            List.of(new byte[0], bytes(), seq(2), new byte[0]),
            replyWithTopic(TOPIC, 2, storedBatch(2)));
    SourceSequencer sequencer = sequencer(replay);

    // When
    sendLive(sequencer, 0, 3);

    // Then: what came after the end is not read
    assertThat(replay.delivered).isEqualTo(2);
    assertThat(sink.log())
        .containsExactly("restart @0", "batch 0", "batch 1", "gap 2..2 @3", "batch 3");
  }

  @Test
  void shouldPublishARestartMarkerWhenTheSequenceGoesBackwards() {
    // Given
    SourceSequencer sequencer = sequencer(null);

    // When: the engine restarts and counts from 0 again
    sendLive(sequencer, 0, 1, 2, 3, 0, 1);

    // Then
    assertThat(sink.log())
        .containsExactly(
            "restart @0",
            "batch 0",
            "batch 1",
            "batch 2",
            "batch 3",
            "restart @0",
            "batch 0",
            "batch 1");
    assertThat(counter(KvBridgeMetrics.RESTARTS)).isEqualTo(2);
  }

  @Test
  void shouldReplayTheNewRunFromZeroWhenARestartIsSeenLate() {
    // Given: the first batches of the new run were lost; its replay buffer has them
    FakeReplay replay =
        new FakeReplay(
            replyWithTopic(TOPIC, 0, storedBatch(100)),
            replyWithTopic(TOPIC, 1, storedBatch(101)),
            replyWithTopic(TOPIC, 2, storedBatch(102)),
            endWithTopic());
    SourceSequencer sequencer = sequencer(replay);

    // When
    sendLive(sequencer, 0, 1, 2, 3, 4);
    sequencer.onMessage(live(TOPIC, 2, storedBatch(102)));

    // Then
    assertThat(replay.requests).containsExactly(0L);
    assertThat(sink.log())
        .containsExactly(
            "restart @0",
            "batch 0",
            "batch 1",
            "batch 2",
            "batch 3",
            "batch 4",
            "restart @2",
            "batch 0",
            "batch 1",
            "batch 2");
    assertThat(sink.records.get(8).events().get(0).blockHashes()).containsExactly(Frames.hex(101));
  }

  @Test
  void shouldDeadLetterMalformedFramesWithoutTouchingTheSequence() {
    // Given
    SourceSequencer sequencer = sequencer(null);
    sendLive(sequencer, 0);

    // When
    sequencer.onMessage(List.of(bytes('k', 'v'), seq(1)));
    sequencer.onMessage(List.of(bytes('k', 'v'), seq(1), storedBatch(1), bytes(9)));
    sequencer.onMessage(List.of(bytes('k', 'v'), bytes(0, 0, 0, 0, 0, 0, 1), storedBatch(1)));
    sequencer.onMessage(List.of(bytes('k', 'v'), bytes(0x80, 0, 0, 0, 0, 0, 0, 1), storedBatch(1)));
    sendLive(sequencer, 1);

    // Then: counted and kept, and 1 follows 0 as if nothing happened
    assertThat(sink.log()).containsExactly("restart @0", "batch 0", "batch 1");
    assertThat(sink.letters)
        .extracting(DeadLetter::reason)
        .containsExactly("bad_frame_count", "bad_frame_count", "bad_seq_frame", "bad_seq_frame");
    DeadLetter first = sink.letters.get(0);
    assertThat(first.producer()).isEqualTo("ingest-bridge");
    assertThat(first.sourceTopic()).isNull();
    assertThat(first.detail())
        .isEqualTo(
            "a message of 2 frame(s) (2, 8 bytes), expected 3: topic, seq, payload"
                + " (source tcp://10.0.3.17:5557|dp0|kv)");
    assertThat(new String(Base64.getDecoder().decode(first.originalKey()), StandardCharsets.UTF_8))
        .isEqualTo("tcp://10.0.3.17:5557|dp0|kv");
    assertThat(unpackFrames(Base64.getDecoder().decode(first.originalValue())))
        .containsExactly(bytes('k', 'v'), seq(1));
    assertThat(
            Meters.count(
                metrics.registry(), KvBridgeMetrics.DEAD_LETTERS, "reason", "bad_seq_frame"))
        .isEqualTo(2);
  }

  @Test
  void shouldDeadLetterAnUndecodablePayloadAndMarkItsSeqLost() {
    // Given
    SourceSequencer sequencer = sequencer(null);
    sendLive(sequencer, 0);

    // When
    sequencer.onMessage(live(TOPIC, 1, bytes(0xc1)));
    sequencer.onMessage(live(TOPIC, 2, bytes(0xa5, 'h', 'e', 'l', 'l', 'o')));
    sendLive(sequencer, 3);

    // Then
    assertThat(sink.log())
        .containsExactly("restart @0", "batch 0", "gap 1..1 @1", "gap 2..2 @2", "batch 3");
    assertThat(sink.letters)
        .extracting(DeadLetter::reason, DeadLetter::detail)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "malformed_msgpack",
                "the reserved byte 0xc1 at byte 0 (source tcp://10.0.3.17:5557|dp0|kv, seq 1;"
                    + " bytes from 0 on left out (unparsed))"),
            org.assertj.core.groups.Tuple.tuple(
                "not_a_batch",
                "expected an array or a map, found a str"
                    + " (source tcp://10.0.3.17:5557|dp0|kv, seq 2)"));
    // What does not parse is left out: it could be token ids; a str parses, and is kept
    assertThat(Base64.getDecoder().decode(sink.letters.get(0).originalValue())).isEmpty();
    assertThat(Base64.getDecoder().decode(sink.letters.get(1).originalValue()))
        .isEqualTo(bytes(0xa5, 'h', 'e', 'l', 'l', 'o'));
  }

  @Test
  void shouldDeadLetterAHashBombWithoutItsTokenIdsAndMarkItsSeqLost() {
    // Given: a BlockStored of 65,537 one-byte hashes, more than any request has blocks
    SourceSequencer sequencer = sequencer(null);
    sendLive(sequencer, 0);

    // When
    sequencer.onMessage(live(TOPIC, 1, Frames.storedMapBatch(65_537, 16)));
    sendLive(sequencer, 2);

    // Then: not published; its letter is the payload with token_ids nil
    assertThat(sink.log()).containsExactly("restart @0", "batch 0", "gap 1..1 @1", "batch 2");
    assertThat(sink.letters)
        .extracting(DeadLetter::reason, DeadLetter::detail)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "too_many_hashes",
                "event 0: block_hashes: an array of 65537 hashes, more than the 65536 allowed per"
                    + " event (source tcp://10.0.3.17:5557|dp0|kv, seq 1; token_ids removed)"));
    assertThat(Base64.getDecoder().decode(sink.letters.get(0).originalValue()))
        .isEqualTo(Frames.storedMapBatch(65_537, -1));
    assertThat(
            Meters.count(
                metrics.registry(), KvBridgeMetrics.DEAD_LETTERS, "reason", "too_many_hashes"))
        .isEqualTo(1);
  }

  @Test
  void shouldCopyOnlyTheFirstMebibyteOfALargePayloadIntoItsLetter() throws Exception {
    // Given: a bomb of 2,000,000 one-byte hashes (2 MB)
    SourceSequencer sequencer = sequencer(null);
    sendLive(sequencer, 0);
    byte[] withoutTokenIds = Frames.storedMapBatch(2_000_000, -1);

    // When
    sequencer.onMessage(live(TOPIC, 1, Frames.storedMapBatch(2_000_000, 16)));

    // Then: the letter keeps 1 MiB and says what the whole copy was
    DeadLetter letter = sink.letters.get(0);
    assertThat(letter.reason()).isEqualTo("too_many_hashes");
    assertThat(Base64.getDecoder().decode(letter.originalValue()))
        .isEqualTo(java.util.Arrays.copyOf(withoutTokenIds, 1 << 20));
    assertThat(letter.truncated()).isTrue();
    assertThat(letter.originalValueLen()).isEqualTo(withoutTokenIds.length);
    assertThat(letter.originalValueSha256())
        .isEqualTo(
            java.util.HexFormat.of()
                .formatHex(
                    java.security.MessageDigest.getInstance("SHA-256").digest(withoutTokenIds)));
  }

  @Test
  void shouldNeverCopyTokenIdsIntoADeadLetter() {
    // Given: a positional BlockStored with block_size 0, and the same batch in a bad frame
    SourceSequencer sequencer = sequencer(null);
    sendLive(sequencer, 0);

    // When
    sequencer.onMessage(live(TOPIC, 1, Frames.legacyStoredBatch(0, true)));
    sequencer.onMessage(
        List.of(bytes('k', 'v'), bytes(0, 0, 0, 0, 0, 0, 2), Frames.legacyStoredBatch(16, true)));

    // Then
    assertThat(sink.letters)
        .extracting(DeadLetter::reason)
        .containsExactly("bad_event", "bad_seq_frame");
    assertThat(Base64.getDecoder().decode(sink.letters.get(0).originalValue()))
        .isEqualTo(Frames.legacyStoredBatch(0, false));
    assertThat(unpackFrames(Base64.getDecoder().decode(sink.letters.get(1).originalValue())))
        .containsExactly(
            bytes('k', 'v'), bytes(0, 0, 0, 0, 0, 0, 2), Frames.legacyStoredBatch(16, false));
  }

  @Test
  void shouldDeadLetterMalformedReplayRepliesAndCarryOn() {
    // Given
    FakeReplay replay =
        new FakeReplay(
            List.of(bytes(1), seq(1), storedBatch(1)),
            List.of(new byte[0], bytes(1, 2, 3), storedBatch(1)),
            List.of(new byte[0]),
            replyWithTopic(TOPIC, 1, storedBatch(1)),
            endWithTopic());
    SourceSequencer sequencer = sequencer(replay);

    // When
    sendLive(sequencer, 0, 2);

    // Then
    assertThat(sink.log()).containsExactly("restart @0", "batch 0", "batch 1", "batch 2");
    assertThat(sink.letters)
        .extracting(DeadLetter::reason)
        .containsExactly("bad_replay_frame", "bad_replay_frame", "bad_replay_frame");
  }

  @Test
  void shouldSkipABatchWithoutEventsAndKeepItsSeq() {
    // Given
    SourceSequencer sequencer = sequencer(null);

    // When
    sendLive(sequencer, 0);
    sequencer.onMessage(live(TOPIC, 1, emptyBatch()));
    sendLive(sequencer, 2);

    // Then
    assertThat(sink.log()).containsExactly("restart @0", "batch 0", "batch 2");
    assertThat(counter(KvBridgeMetrics.EMPTY_BATCHES)).isEqualTo(1);
  }

  @Test
  void shouldOweAGapMarkerForBatchesTheQueueRefused() {
    // Given
    SourceSequencer sequencer = sequencer(null);
    sendLive(sequencer, 0, 1);

    // When: the hand-off is full for 2 and 3
    sink.refuse = 2;
    sendLive(sequencer, 2, 3, 4);

    // Then
    assertThat(sink.log())
        .containsExactly("restart @0", "batch 0", "batch 1", "gap 2..3 @4", "batch 4");
    assertThat(Meters.count(metrics.registry(), KvBridgeMetrics.QUEUE_DROPS, "kind", "batch"))
        .isEqualTo(2);
  }

  @Test
  void shouldOweARestartMarkerTheQueueRefusedBeforeAnythingElse() {
    // Given
    SourceSequencer sequencer = sequencer(null);
    sendLive(sequencer, 0, 1, 2);

    // When: the restart marker and the batch after it are refused
    sink.refuse = 2;
    sendLive(sequencer, 0, 1);

    // Then: the restart comes first, then what was lost after it
    assertThat(sink.log())
        .containsExactly(
            "restart @0", "batch 0", "batch 1", "batch 2", "restart @1", "gap 0..0 @1", "batch 1");
  }

  @Test
  void shouldOweAGapMarkerForABatchKafkaRefusedLater() {
    // Given
    SourceSequencer sequencer = sequencer(null);
    sendLive(sequencer, 0, 1);

    // When: the producer reports batch 1 as lost (from its own thread)
    sink.lostCallbacks.get(2).accept(sink.records.get(2));
    sendLive(sequencer, 2);

    // Then
    assertThat(sink.log())
        .containsExactly("restart @0", "batch 0", "batch 1", "gap 1..1 @2", "batch 2");
  }

  // ---------------------------------------------------------------------------------------------

  private SourceSequencer sequencer(ReplayClient replay) {
    return new SourceSequencer(SOURCE, replay, sink, metrics, () -> 1_700_000_000_000L);
  }

  /** Live batches whose one block hash is their seq. */
  private static void sendLive(SourceSequencer sequencer, long... seqs) {
    for (long seq : seqs) {
      sequencer.onMessage(live(TOPIC, seq, storedBatch(seq)));
    }
  }

  private long counter(String name) {
    return Meters.count(metrics.registry(), name);
  }

  private static List<byte[]> unpackFrames(byte[] msgpack) {
    try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(msgpack)) {
      List<byte[]> frames = new ArrayList<>();
      for (int n = unpacker.unpackArrayHeader(); n > 0; n--) {
        frames.add(unpacker.readPayload(unpacker.unpackBinaryHeader()));
      }
      return frames;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Takes everything (or refuses the next {@link #refuse} records) and remembers it. */
  static final class RecordingSink implements KvSink {
    final List<KvEventBatch> records = new ArrayList<>();
    final List<Consumer<KvEventBatch>> lostCallbacks = new ArrayList<>();
    final List<DeadLetter> letters = new ArrayList<>();
    int refuse;

    @Override
    public boolean offer(KvEventBatch record, Consumer<KvEventBatch> onLost) {
      if (refuse > 0) {
        refuse--;
        return false;
      }
      records.add(record);
      lostCallbacks.add(onLost);
      return true;
    }

    @Override
    public boolean offerDeadLetter(byte[] key, DeadLetter letter) {
      letters.add(letter);
      return true;
    }

    KvEventBatch batch(int index) {
      return records.get(index + 1); // after the first-contact marker
    }

    /** "batch 5", "gap 3..6 @7", "restart @0". */
    List<String> log() {
      return records.stream().map(RecordingSink::describe).toList();
    }

    static String describe(KvEventBatch b) {
      if (b.marker() == null) {
        assertThat(b.events()).isNotEmpty();
        return "batch " + b.seq();
      }
      assertThat(b.events()).isNull();
      return KvEventBatch.MARKER_GAP.equals(b.marker())
          ? "gap " + b.missingFrom() + ".." + b.missingTo() + " @" + b.seq()
          : b.marker() + " @" + b.seq();
    }
  }

  /** Hands its replies to the handler until it stops, then ends (or "times out"). */
  static final class FakeReplay implements ReplayClient {
    final List<Long> requests = new ArrayList<>();
    final List<List<byte[]>> replies = new ArrayList<>();
    int delivered;

    /** Replies in order; without an end marker among them the replay "times out" after them. */
    @SafeVarargs
    FakeReplay(List<byte[]>... replies) {
      for (List<byte[]> reply : replies) {
        this.replies.add(reply);
      }
    }

    @Override
    public boolean replay(long fromSeq, Predicate<List<byte[]>> handler) {
      requests.add(fromSeq);
      for (List<byte[]> reply : replies) {
        delivered++;
        if (!handler.test(reply)) {
          return true;
        }
      }
      return false; // no end marker came: time ran out
    }
  }
}
