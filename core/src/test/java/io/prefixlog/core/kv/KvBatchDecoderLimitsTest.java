package io.prefixlog.core.kv;

import static io.prefixlog.core.kv.Msgpack.list;
import static io.prefixlog.core.kv.Msgpack.map;
import static io.prefixlog.core.kv.Msgpack.pack;
import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.kv.Msgpack.Raw;
import io.prefixlog.schemas.kv.KvEvent;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hash bombs: arrays of one-byte hashes, each of which the decoder turns into a 16-digit hex string
 * of about 60 bytes of heap. The default limits refuse them before the array is allocated.
 */
class KvBatchDecoderLimitsTest {
  private static final KvSource SOURCE = KvSource.of("tcp://10.0.3.17:5557", 0, "kv");

  @Test
  void shouldRefuseAnEventWithMoreHashesThanAnyRealRequestHasBlocks() {
    // Given: one BlockStored of 65,537 one-byte hashes (65.5 KB on the wire)
    byte[] payload = pack(list(1.0, list(stored(65_537))));

    // When
    DecodeResult result = KvBatchDecoder.decode(payload, SOURCE, 3, 1L);

    // Then
    assertThat(outcome(result))
        .isEqualTo(
            "too_many_hashes: event 0: block_hashes: an array of 65537 hashes, more than the"
                + " 65536 allowed per event");
  }

  @Test
  void shouldDecodeAnEventWithExactlyTheMostHashesAllowed() {
    // Given
    byte[] payload = pack(list(1.0, list(stored(65_536))));

    // When
    DecodeResult result = KvBatchDecoder.decode(payload, SOURCE, 3, 1L);

    // Then
    assertThat(outcome(result)).isEqualTo("decoded: 1 events, 65536 hashes");
    assertThat(((DecodedBatch) result).batch().events().get(0).blockHashes().get(0))
        .isEqualTo("0000000000000001");
  }

  @Test
  void shouldRefuseABatchWhoseEventsTogetherKeepMoreValuesThanAllowed() {
    // Given: 17 events at the per-event limit (1.1 MB), each within it
    List<Object> events = new ArrayList<>();
    for (int i = 0; i < 17; i++) {
      events.add(stored(65_536));
    }
    byte[] payload = pack(list(1.0, events));

    // When
    DecodeResult result = KvBatchDecoder.decode(payload, SOURCE, 3, 1L);

    // Then: the 17 events and 15 × 65,536 hashes leave 65,519 of 1,048,576 values
    assertThat(outcome(result))
        .isEqualTo(
            "batch_too_large: event 15: block_hashes: 65536 values, more than the 65519 left of"
                + " the 1048576 a batch may keep");
  }

  @Test
  void shouldCountExtraKeysValuesAgainstTheBatchLimit() {
    // Given: one event whose extra_keys is an array of 1,048,576 nils (1 MB)
    byte[] nils = new byte[5 + (1 << 20)];
    ByteBuffer.wrap(nils).put((byte) 0xdd).putInt(1 << 20);
    Arrays.fill(nils, 5, nils.length, (byte) 0xc0);
    byte[] payload =
        pack(
            list(
                1.0,
                list(
                    map(
                        "type",
                        "BlockStored",
                        "block_hashes",
                        list(1L),
                        "extra_keys",
                        new Raw(nils)))));

    // When
    DecodeResult result = KvBatchDecoder.decode(payload, SOURCE, 3, 1L);

    // Then
    assertThat(outcome(result))
        .isEqualTo(
            "batch_too_large: event 0: extra_keys: 1048576 values, more than the 1048574 left of"
                + " the 1048576 a batch may keep");
  }

  @Test
  void shouldApplyTheLimitsItIsGiven() {
    // Given
    KvDecodeLimits limits = new KvDecodeLimits(4, 10);
    byte[] five = pack(list(1.0, list(stored(5))));
    byte[] threeOfThree = pack(list(1.0, list(stored(3), stored(3), stored(3))));
    byte[] twoOfFour = pack(list(1.0, list(stored(4), stored(4))));

    // When / Then: 3 events + 9 hashes are 12 values; 2 events + 8 hashes are 10
    assertThat(outcome(KvBatchDecoder.decode(five, SOURCE, 3, 1L, limits)))
        .isEqualTo(
            "too_many_hashes: event 0: block_hashes: an array of 5 hashes, more than the 4"
                + " allowed per event");
    assertThat(outcome(KvBatchDecoder.decode(threeOfThree, SOURCE, 3, 1L, limits)))
        .isEqualTo(
            "batch_too_large: event 2: block_hashes: 3 values, more than the 1 left of the 10 a"
                + " batch may keep");
    assertThat(outcome(KvBatchDecoder.decode(twoOfFour, SOURCE, 3, 1L, limits)))
        .isEqualTo("decoded: 2 events, 8 hashes");
  }

  /** The result in a line: a failure's reason and detail, or what was decoded. */
  private static String outcome(DecodeResult result) {
    if (result instanceof DecodeFailure failure) {
      return failure.reason() + ": " + failure.detail();
    }
    List<KvEvent> events = ((DecodedBatch) result).batch().events();
    int hashes = events.stream().mapToInt(e -> e.blockHashes().size()).sum();
    return "decoded: " + events.size() + " events, " + hashes + " hashes";
  }

  /** A BlockStored map event of {@code n} one-byte hashes (1, 2, … as positive fixints). */
  private static Object stored(int n) {
    byte[] hashes = new byte[5 + n];
    ByteBuffer.wrap(hashes).put((byte) 0xdd).putInt(n);
    for (int i = 0; i < n; i++) {
      hashes[5 + i] = (byte) (1 + i % 127);
    }
    return map("type", "BlockStored", "block_hashes", new Raw(hashes), "block_size", 16);
  }
}
