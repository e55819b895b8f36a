package io.prefixlog.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChunkHasherTest {
  private static final int CHUNK = 64;

  @Test
  void shouldComputeTheSpecifiedChain() {
    // Given: the expected values come from Python's hashlib, an independent implementation of
    // h(i) = first 8 bytes of SHA-256(h(i-1) as 8 bytes big-endian ‖ chunk(i)), h(-1) = 0
    byte[] text =
        "The quick brown fox jumps over the lazy dog. ".repeat(3).getBytes(StandardCharsets.UTF_8);

    // When
    long[] hashes = new ChunkHasher(CHUNK).hash(text);

    // Then
    assertThat(ChunkHasher.hex(hashes)).containsExactly("0x519c9d94e794a5a4", "0x3aeed7c02af1bb92");
  }

  @Test
  void shouldGiveEqualHashesForEqualPrefixes() {
    // Given: two inputs that share their first 10.5 chunks
    byte[] shared = random(1, CHUNK * 10 + CHUNK / 2);
    byte[] a = concat(shared, random(2, CHUNK * 5));
    byte[] b = concat(shared, random(3, CHUNK * 7));
    ChunkHasher hasher = new ChunkHasher(CHUNK);

    // When
    long[] ha = hasher.hash(a);
    long[] hb = hasher.hash(b);

    // Then: the ten full shared chunks hash equal, every later one differs
    assertThat(Arrays.copyOf(ha, 10)).isEqualTo(Arrays.copyOf(hb, 10));
    for (int i = 10; i < Math.min(ha.length, hb.length); i++) {
      assertThat(ha[i]).as("chunk %d", i).isNotEqualTo(hb[i]);
    }
  }

  @Test
  void shouldChangeTheHashesFromTheChunkWithAOneByteDifferenceOn() {
    // Given
    byte[] original = random(4, CHUNK * 8);
    ChunkHasher hasher = new ChunkHasher(CHUNK);
    long[] before = hasher.hash(original);
    for (int k = 0; k < 8; k++) {
      byte[] edited = original.clone();
      edited[k * CHUNK + 17] ^= 1;

      // When
      long[] after = hasher.hash(edited);

      // Then
      for (int i = 0; i < 8; i++) {
        if (i < k) {
          assertThat(after[i]).as("edit in chunk %d, hash %d", k, i).isEqualTo(before[i]);
        } else {
          assertThat(after[i]).as("edit in chunk %d, hash %d", k, i).isNotEqualTo(before[i]);
        }
      }
    }
  }

  @Test
  void shouldChangeEveryLaterHashWhenAChunkRepeatsAtAnotherPosition() {
    // Given: the same chunk content at position 0 and 1 (the chain, not the chunk, is hashed)
    byte[] chunk = random(5, CHUNK);

    // When
    long[] hashes = new ChunkHasher(CHUNK).hash(concat(chunk, chunk));

    // Then
    assertThat(hashes[0]).isNotEqualTo(hashes[1]);
  }

  @Test
  void shouldHashFullChunksOnlyAndIgnoreTheTail() {
    // Given
    byte[] full = random(6, CHUNK * 3);
    ChunkHasher hasher = new ChunkHasher(CHUNK);

    // When
    long[] withoutTail = hasher.hash(full);
    long[] withTail = hasher.hash(concat(full, random(7, CHUNK - 1)));
    long[] shorterThanAChunk = hasher.hash(random(8, CHUNK - 1));

    // Then
    assertThat(withoutTail).hasSize(3);
    assertThat(withTail).isEqualTo(withoutTail);
    assertThat(shorterThanAChunk).isEmpty();
    assertThat(hasher.hash(new byte[0])).isEmpty();
  }

  @Test
  void shouldWriteHashesAsLmcacheDoesWithSixteenLowerCaseHexDigits() {
    assertThat(ChunkHasher.hex(1L)).isEqualTo("0x0000000000000001");
    assertThat(ChunkHasher.hex(-1L)).isEqualTo("0xffffffffffffffff");
    assertThat(ChunkHasher.hex(0xABCDEF0123456789L)).isEqualTo("0xabcdef0123456789");
    assertThat(ChunkHasher.hex(new long[] {2, 3}))
        .containsExactly("0x0000000000000002", "0x0000000000000003");
  }

  @Test
  void shouldRejectAChunkSizeBelowOne() {
    assertThatThrownBy(() -> new ChunkHasher(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkSize must be >= 1, got 0");
  }

  private static byte[] random(long seed, int length) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
