package io.prefixlog.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KvBatchEncoderTest {
  private static final KvSource SOURCE = KvSource.of("tcp://127.0.0.1:5557", 0, "kv");
  private static final long HIGH = 0xfedcba9876543210L; // above 2^63: a uint64 on the wire

  @Test
  void shouldWriteTheBytesVllmsMsgspecWritesForANewerEngine() {
    // Given
    int[] tokens = {1, 2, 3, 4};

    // When
    byte[] bytes =
        KvBatchEncoder.start(1.5, 2)
            .blockStored(List.of(7L, HIGH), 5L, tokens, 2, 0, "full_attention", "s-1")
            .blockRemoved(HIGH, 1)
            .finish(0);

    // Then
    Map<String, Object> stored = storedMap(List.of(7L, uint64(HIGH)), 5L, tokens, 2);
    stored.put("kv_cache_spec_kind", "full_attention");
    stored.put("extra_keys", Arrays.asList(null, null));
    stored.put("session_id", "s-1");
    assertThat(bytes)
        .isEqualTo(Msgpack.pack(List.of(1.5, List.of(stored, removedMap(uint64(HIGH), 1)), 0)));
  }

  @Test
  void shouldLeaveOutTheNewerFieldsForAnOlderEngineAndDecodeBack() {
    // Given
    int[] tokens = {9, 8};

    // When
    byte[] bytes =
        KvBatchEncoder.start(2.25, 1)
            .blockStored(List.of(3L), null, tokens, 2, 0, null, "s-2")
            .finish(3);

    // Then
    Map<String, Object> stored = storedMap(List.of(3L), null, tokens, 2);
    stored.put("session_id", "s-2");
    assertThat(bytes).isEqualTo(Msgpack.pack(List.of(2.25, List.of(stored), 3)));
    KvEventBatch batch = ((DecodedBatch) KvBatchDecoder.decode(bytes, SOURCE, 1, 0)).batch();
    assertThat(batch.events()).extracting(KvEvent::type).containsExactly("BlockStored");
  }

  @Test
  void shouldRefuseABatchThatDoesNotHoldTheAnnouncedEvents() {
    assertThatThrownBy(() -> KvBatchEncoder.start(1.0, 1).finish(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("1 announced events were not written");
    assertThatThrownBy(() -> KvBatchEncoder.start(1.0, 0).blockRemoved(1L, 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("more events than the batch announced");
  }

  private static Map<String, Object> storedMap(
      List<?> hashes, Long parent, int[] tokens, int blockSize) {
    List<Object> tokenList = new ArrayList<>();
    for (int token : tokens) {
      tokenList.add(token);
    }
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("type", "BlockStored");
    map.put("block_hashes", hashes);
    map.put("parent_block_hash", parent);
    map.put("token_ids", tokenList);
    map.put("block_size", blockSize);
    map.put("lora_id", null);
    map.put("medium", "GPU");
    map.put("lora_name", null);
    map.put("group_idx", 0);
    return map;
  }

  private static Map<String, Object> removedMap(Object hash, int groupIdx) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("type", "BlockRemoved");
    map.put("block_hashes", List.of(hash));
    map.put("medium", "GPU");
    map.put("group_idx", groupIdx);
    return map;
  }

  private static BigInteger uint64(long hash) {
    return new BigInteger(Long.toUnsignedString(hash));
  }
}
