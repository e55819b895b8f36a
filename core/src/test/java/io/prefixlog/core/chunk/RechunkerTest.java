package io.prefixlog.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.core.text.Utf8;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RechunkerTest {
  private static final String SYSTEM = "You are a careful assistant who answers briefly. ";

  /** A chat, a completion, a body that is not JSON and one that is not UTF-8. */
  private static List<byte[]> bodies() {
    List<byte[]> bodies = new ArrayList<>();
    bodies.add(
        utf8(
            "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\""
                + SYSTEM.repeat(12)
                + "\"},{\"role\":\"user\",\"content\":\"Name three primes, ünïcödé 😀.\"}]}"));
    bodies.add(utf8("{\"model\":\"m\",\"prompt\":\"" + "Once upon a time ".repeat(40) + "\"}"));
    bodies.add(utf8("not json at all ".repeat(30)));
    byte[] latin1 = new byte[700];
    for (int i = 0; i < latin1.length; i++) {
      latin1[i] = (byte) (0x80 + i % 100);
    }
    bodies.add(latin1);
    return bodies;
  }

  @Test
  void shouldHashEverySizeAsTheStreamAppsLookupRecordsDo() {
    // Given: the stream app's lookup record of each body at each size (ChunkLookupProcessor calls
    // ChunkLookups.of on the validated request)
    int[] sizes = {16, 64, 256, 1000};
    Rechunker rechunker = new Rechunker(sizes, null);

    for (byte[] body : bodies()) {
      // When
      Rechunker.Rechunked r = rechunker.rechunk(body);

      // Then
      for (int i = 0; i < sizes.length; i++) {
        var record =
            new ChunkLookups(sizes[i])
                .of(
                    new ValidatedRequest(
                        ChunkLookupsTest.event("r", 1000L, "m", body, null),
                        body,
                        Utf8.isStrict(body)));
        assertThat(ChunkHasher.hex(r.hashes(i))).isEqualTo(record.chunkHashes());
        assertThat(r.length()).isEqualTo(record.seqLen());
        assertThat(r.kind().wireName()).isEqualTo(record.chunked());
      }
    }
  }

  @Test
  void shouldHashTokenIdsInPrefixOrderNChunksAtATime() throws Exception {
    // Given: a tokenizer that makes one id per byte plus 1000, so the ids are known
    Rechunker.Tokenizer tokenizer = text -> text.chars().mapToLong(c -> 1000L + c).toArray();
    byte[] body = utf8("{\"prompt\":\"abcdefghij\"}");
    Rechunker rechunker = new Rechunker(new int[] {3, 4}, tokenizer);

    // When
    Rechunker.Rechunked r = rechunker.rechunk(body);

    // Then: h(i) = first 8 bytes of SHA-256(h(i-1) ‖ ids of chunk i as 4-byte big-endian)
    assertThat(r.length()).isEqualTo(10);
    assertThat(r.hashes(0)).containsExactly(reference("abcdefghij", 3));
    assertThat(r.hashes(1)).containsExactly(reference("abcdefghij", 4));
    assertThat(r.hashes(0)).hasSize(3);
    assertThat(r.hashes(1)).hasSize(2);
  }

  @Test
  void shouldRefuseIdsOutsideTheU32Range() {
    Rechunker rechunker = new Rechunker(new int[] {1}, text -> new long[] {1L << 32});

    assertThatThrownBy(() -> rechunker.rechunk(utf8("{\"prompt\":\"x\"}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4294967296");
  }

  private static long[] reference(String text, int n) throws Exception {
    int chunks = text.length() / n;
    long[] out = new long[chunks];
    long parent = 0;
    for (int i = 0; i < chunks; i++) {
      ByteBuffer input = ByteBuffer.allocate(8 + 4 * n).putLong(parent);
      for (int j = 0; j < n; j++) {
        input.putInt(1000 + text.charAt(i * n + j));
      }
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(input.array());
      parent = ByteBuffer.wrap(digest).getLong();
      out[i] = parent;
    }
    return out;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
