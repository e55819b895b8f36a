package io.prefixlog.core.kv;

import static io.prefixlog.core.kv.Msgpack.list;
import static io.prefixlog.core.kv.Msgpack.map;
import static io.prefixlog.core.kv.Msgpack.pack;
import static io.prefixlog.core.kv.Msgpack.tokens;
import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.kv.Msgpack.Raw;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TokenIdsRemoverTest {
  @Test
  void shouldReplaceTheTokenIdsOfMapEventsWithNilAndKeepEveryOtherByte() {
    // Given
    byte[] payload =
        pack(
            list(
                1.5,
                list(
                    map(
                        "type",
                        "BlockStored",
                        "block_hashes",
                        list(7L),
                        "token_ids",
                        tokens(16, 900)),
                    map("type", "BlockRemoved", "block_hashes", list(7L))),
                0));

    // When
    TokenIdsRemover.Result result = TokenIdsRemover.remove(payload);

    // Then
    assertThat(result.bytes())
        .isEqualTo(
            pack(
                list(
                    1.5,
                    list(
                        map("type", "BlockStored", "block_hashes", list(7L), "token_ids", null),
                        map("type", "BlockRemoved", "block_hashes", list(7L))),
                    0)));
    assertThat(result.removed()).isEqualTo(1);
    assertThat(result.leftOutFrom()).isEqualTo(-1);
  }

  @Test
  void shouldReplaceElementThreeOfAPositionalBlockStoredOnly() {
    // Given: element 3 of a BlockStored, and of another type (kept)
    byte[] payload =
        pack(
            list(
                1.0,
                list(
                    list("BlockStored", list(1L), null, tokens(16, 5), 16),
                    list("Other", 1, 2, list(3, 4)))));

    // When
    TokenIdsRemover.Result result = TokenIdsRemover.remove(payload);

    // Then
    assertThat(result.bytes())
        .isEqualTo(
            pack(
                list(
                    1.0,
                    list(
                        list("BlockStored", list(1L), null, null, 16),
                        list("Other", 1, 2, list(3, 4))))));
    assertThat(result.changed()).isTrue();
  }

  @Test
  void shouldKeepAPayloadWithoutTokenIdsByteForByte() {
    // Given
    byte[] payload = pack(list(1.0, list(map("type", "AllBlocksCleared")), 0));

    // When
    TokenIdsRemover.Result result = TokenIdsRemover.remove(payload);

    // Then
    assertThat(result.bytes()).isEqualTo(payload);
    assertThat(result.changed()).isFalse();
  }

  @Test
  void shouldLeaveOutEverythingFromTokenIdsCutShort() {
    // Given: a BlockStored whose token ids run past the end
    byte[] whole =
        pack(
            list(
                1.0,
                list(
                    map(
                        "type",
                        "BlockStored",
                        "block_hashes",
                        list(7L),
                        "token_ids",
                        tokens(16, 900)))));
    byte[] payload = Arrays.copyOf(whole, whole.length - 3);
    int tokenIdsAt =
        pack(list(
                    1.0,
                    list(map("type", "BlockStored", "block_hashes", list(7L), "token_ids", null))))
                .length
            - 1;

    // When
    TokenIdsRemover.Result result = TokenIdsRemover.remove(payload);

    // Then: up to the token ids, nothing of them
    assertThat(result.bytes()).isEqualTo(Arrays.copyOf(payload, tokenIdsAt));
    assertThat(result.leftOutFrom()).isEqualTo(tokenIdsAt);
  }

  @Test
  void shouldLeaveOutEverythingAfterAByteThatDoesNotParse() {
    // Given: a reserved byte where a hash should be, token ids after it
    byte[] before =
        pack(list(1.0, list(list("BlockStored", list(new Raw(new byte[] {(byte) 0xc1}))))));
    byte[] payload =
        pack(
            list(
                1.0,
                list(
                    list(
                        "BlockStored",
                        list(new Raw(new byte[] {(byte) 0xc1})),
                        null,
                        tokens(16, 900)))));
    int bad = before.length - 1;

    // When
    TokenIdsRemover.Result result = TokenIdsRemover.remove(payload);

    // Then
    assertThat(result.bytes()).isEqualTo(Arrays.copyOf(payload, bad));
    assertThat(result.leftOutFrom()).isEqualTo(bad);
    assertThat(result.removed()).isZero();
  }

  @Test
  void shouldKeepTheFirstBytesOnlyAndDescribeTheWholeCopy() throws Exception {
    // Given
    byte[] payload =
        pack(
            list(
                1.0,
                list(
                    map(
                        "type",
                        "BlockStored",
                        "block_hashes",
                        list(7L, 8L, 9L),
                        "token_ids",
                        tokens(64, 900)))));
    byte[] whole = TokenIdsRemover.remove(payload).bytes();

    // When
    TokenIdsRemover.Result result = TokenIdsRemover.remove(payload, 10);

    // Then
    assertThat(result.bytes()).isEqualTo(Arrays.copyOf(whole, 10));
    assertThat(result.truncated()).isTrue();
    assertThat(result.length()).isEqualTo(whole.length);
    assertThat(result.sha256())
        .isEqualTo(
            java.util.HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(whole)));
    assertThat(TokenIdsRemover.remove(payload, whole.length).truncated()).isFalse();
  }

  @Test
  void shouldStopAtDeepNestingAndNeverThrow() {
    // Given: 100,000 nested one-element arrays, and every two-byte payload
    byte[] deep = new byte[100_000];
    Arrays.fill(deep, (byte) 0x91);

    // When
    TokenIdsRemover.Result result = TokenIdsRemover.remove(deep);
    for (int a = 0; a < 256; a++) {
      for (int b = 0; b < 256; b++) {
        TokenIdsRemover.remove(new byte[] {(byte) a, (byte) b});
      }
    }

    // Then
    assertThat(result.leftOutFrom()).isEqualTo(TokenIdsRemover.MAX_DEPTH);
    assertThat(result.bytes()).hasSize(TokenIdsRemover.MAX_DEPTH);
  }
}
