package io.prefixlog.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.prefixlog.schemas.kv.KvEventBatch;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Properties over random payloads (fixed seeds, so a failure reproduces): every well-formed batch
 * in any layout decodes to exactly the record worked out independently; every random, truncated,
 * bit-flipped or wrongly-typed payload gives a decoded batch or a classified failure, never an
 * exception and never a {@code decoder_error}; and whatever decodes is a record the schema accepts.
 */
class KvBatchDecoderPropertyTest {
  private static final KvSource SOURCE = KvSource.of("tcp://127.0.0.1:5557", 2, "");
  private static final long RECEIVED = 1_749_633_401_912L;
  private static final int CASES = 2000;

  /** The first failure detail of each reason, for the assertion messages. */
  private static final Map<String, String> EXAMPLES =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** Bytes that change a value's type when written over another: every msgpack family. */
  private static final byte[] TYPE_BYTES = {
    (byte) 0xc0, (byte) 0xc1, (byte) 0xc2, (byte) 0xc3, (byte) 0xc4, (byte) 0xc6, (byte) 0xca,
    (byte) 0xcb, (byte) 0xcf, (byte) 0xd3, (byte) 0xd4, (byte) 0xd9, (byte) 0xdc, (byte) 0xdd,
    (byte) 0xde, (byte) 0xdf, (byte) 0x80, (byte) 0x90, (byte) 0xa0, (byte) 0xe0, (byte) 0x7f,
    (byte) 0xff
  };

  @Test
  void shouldDecodeEveryGeneratedBatchInAnyLayoutToExactlyTheExpectedRecord() {
    // Given
    Random random = new Random(20260612L);
    RandomBatches batches = new RandomBatches(random, SOURCE);

    for (int i = 0; i < CASES; i++) {
      RandomBatches.Generated generated = batches.next(i, RECEIVED);

      // When
      DecodeResult result = KvBatchDecoder.decode(generated.payload(), SOURCE, i, RECEIVED);

      // Then
      if (!(result instanceof DecodedBatch decoded)) {
        throw new AssertionError("case " + i + ": " + result + " for " + generated.tree());
      }
      assertThat(KvBatchSchema.json(decoded.batch()))
          .as("case %d: %s", i, generated.tree())
          .isEqualTo(KvBatchSchema.json(generated.expected()));
      assertThat(decoded.batch()).isEqualTo(generated.expected());
    }
  }

  @Test
  void shouldClassifyEveryTruncatedPayload() {
    // Given
    Random random = new Random(1);
    RandomBatches batches = new RandomBatches(random, SOURCE);
    Map<String, Integer> outcomes = new TreeMap<>();

    for (int i = 0; i < CASES / 8; i++) {
      byte[] payload = batches.next(i, RECEIVED).payload();
      // When: every proper prefix of it
      for (int length = 0; length < payload.length; length += 1 + random.nextInt(16)) {
        classify(Arrays.copyOf(payload, length), outcomes);
      }
    }

    // Then: a proper prefix of one msgpack value is never a complete one
    assertThat(outcomes).as("%s", EXAMPLES).containsOnlyKeys("malformed_msgpack");
  }

  @Test
  void shouldClassifyEveryPayloadWithFlippedInsertedOrDeletedBytes() {
    // Given
    Random random = new Random(2);
    RandomBatches batches = new RandomBatches(random, SOURCE);
    Map<String, Integer> outcomes = new TreeMap<>();

    for (int i = 0; i < CASES * 4; i++) {
      byte[] payload = batches.next(i, RECEIVED).payload();
      for (int mutations = 1 + random.nextInt(3); mutations > 0; mutations--) {
        payload = mutate(payload, random);
      }

      // When
      classify(payload, outcomes);
    }

    // Then: both outcomes occur (a test where everything fails, or nothing does, proves little)
    assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CASES * 4);
    assertThat(outcomes)
        .containsKeys("decoded", "malformed_msgpack", "not_a_batch", "bad_event")
        .doesNotContainKey("decoder_error");
  }

  @Test
  void shouldClassifyEveryPayloadWithAValueOfTheWrongType() {
    // Given
    Random random = new Random(3);
    RandomBatches batches = new RandomBatches(random, SOURCE);
    Map<String, Integer> outcomes = new TreeMap<>();

    for (int i = 0; i < CASES * 2; i++) {
      Object tree = batches.next(i, RECEIVED).tree();
      for (int mutations = 1 + random.nextInt(2); mutations > 0; mutations--) {
        tree = batches.replaceOneNode(tree);
      }

      // When
      classify(Msgpack.pack(tree), outcomes);
    }

    // Then
    assertThat(outcomes)
        .containsKeys("decoded", "not_a_batch", "bad_event")
        .doesNotContainKey("decoder_error");
  }

  @Test
  void shouldClassifyRandomBytesAndRandomMsgpackValues() {
    // Given
    Random random = new Random(4);
    RandomBatches batches = new RandomBatches(random, SOURCE);
    Map<String, Integer> outcomes = new TreeMap<>();

    for (int i = 0; i < CASES * 2; i++) {
      byte[] bytes = new byte[random.nextInt(64)];
      random.nextBytes(bytes);
      // When
      classify(bytes, outcomes);
      classify(Msgpack.pack(batches.randomValue(4)), outcomes);
      classify(Msgpack.pack(Msgpack.list(1.5, Msgpack.list(batches.randomValue(3)), 0)), outcomes);
    }

    // Then
    assertThat(outcomes)
        .containsKeys("decoded", "malformed_msgpack", "not_a_batch", "bad_event")
        .doesNotContainKey("decoder_error");
  }

  /**
   * Decodes and counts the outcome; a decoded batch with events must satisfy the schema and keep no
   * token ids.
   */
  private static void classify(byte[] payload, Map<String, Integer> outcomes) {
    DecodeResult result;
    try {
      result = KvBatchDecoder.decode(payload, SOURCE, 7, RECEIVED);
    } catch (RuntimeException | Error e) {
      throw new AssertionError("the decoder threw for " + Arrays.toString(payload), e);
    }
    String outcome;
    if (result instanceof DecodedBatch decoded) {
      outcome = "decoded";
      KvEventBatch batch = decoded.batch();
      if (!decoded.isEmpty()) {
        assertThat(KvBatchSchema.errors(batch))
            .as("%s from %s", KvBatchSchema.json(batch), Arrays.toString(payload))
            .isEmpty();
      }
      assertThat(KvBatchSchema.json(batch)).doesNotContain("token_ids");
    } else if (result instanceof DecodeFailure failure) {
      outcome = failure.reason();
      EXAMPLES.putIfAbsent(outcome, failure.detail() + " for " + Arrays.toString(payload));
      if (outcome.equals(DecodeFailure.DECODER_ERROR)) {
        fail("decoder_error %s for %s", failure.detail(), Arrays.toString(payload));
      }
      assertThat(failure.detail()).isNotBlank();
    } else {
      throw new AssertionError("neither decoded nor failed: " + result);
    }
    outcomes.merge(outcome, 1, Integer::sum);
  }

  private static byte[] mutate(byte[] payload, Random random) {
    if (payload.length == 0) {
      return new byte[] {(byte) random.nextInt(256)};
    }
    int at = random.nextInt(payload.length);
    byte[] q = payload.clone();
    switch (random.nextInt(6)) {
      case 0:
        return Arrays.copyOf(payload, at); // truncate
      case 1:
        q[at] ^= (byte) (1 << random.nextInt(8)); // flip a bit
        return q;
      case 2:
        q[at] = (byte) random.nextInt(256); // overwrite a byte
        return q;
      case 3:
        q[at] = TYPE_BYTES[random.nextInt(TYPE_BYTES.length)]; // change a value's type
        return q;
      case 4:
        {
          byte[] longer = new byte[payload.length + 1]; // insert a byte
          System.arraycopy(payload, 0, longer, 0, at);
          longer[at] = (byte) random.nextInt(256);
          System.arraycopy(payload, at, longer, at + 1, payload.length - at);
          return longer;
        }
      default:
        {
          byte[] shorter = new byte[payload.length - 1]; // delete a byte
          System.arraycopy(payload, 0, shorter, 0, at);
          System.arraycopy(payload, at + 1, shorter, at, payload.length - at - 1);
          return shorter;
        }
    }
  }
}
