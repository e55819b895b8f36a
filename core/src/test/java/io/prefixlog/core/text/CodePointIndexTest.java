package io.prefixlog.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CodePointIndexTest {
  private static final String[] ALPHABET = {"a", " ", "\n", "é", "ß", "中", "😀", "🧪", "\"", "z"};

  @Test
  void shouldConvertEveryOffsetBothWaysAsCountingFromTheStartDoes() {
    // Given: multilingual text across many blocks, with multi-byte characters on block borders
    Random random = new Random(7);
    for (int length : new int[] {0, 1, 4095, 4096, 4097, 3 * CodePointIndex.BLOCK + 11, 40_000}) {
      StringBuilder text = new StringBuilder();
      while (text.toString().getBytes(StandardCharsets.UTF_8).length < length) {
        text.append(ALPHABET[random.nextInt(ALPHABET.length)]);
      }
      byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);

      // When
      CodePointIndex index = CodePointIndex.of(bytes);

      // Then: at every code point boundary, both conversions agree with the naive count
      long codePoints = 0;
      for (int offset = 0; offset <= bytes.length; offset++) {
        if (offset < bytes.length && Utf8.isContinuation(bytes[offset])) {
          continue;
        }
        assertThat(index.codePointAt(offset))
            .as("offset %d of %d", offset, length)
            .isEqualTo(codePoints);
        assertThat(index.byteOffsetOf(codePoints))
            .as("code point %d", codePoints)
            .isEqualTo(offset);
        codePoints++;
      }
      assertThat(index.codePoints()).isEqualTo(codePoints - 1);
      assertThat(index.byteOffsetOf(codePoints)).isEqualTo(-1);
      assertThat(index.byteOffsetOf(-1)).isEqualTo(-1);
    }
  }

  @Test
  void shouldExtendAnIndexToBytesThatShareAPrefixAsIfBuiltAnew() {
    // Given: bodies that share a prefix ending anywhere, on block borders and inside characters
    Random random = new Random(11);
    byte[] base = text(random, 5 * CodePointIndex.BLOCK + 123);
    CodePointIndex known = CodePointIndex.of(base);
    for (int shared :
        new int[] {0, 1, 4095, 4096, 4097, 8190, 8192, 12_000, base.length - 1, base.length}) {
      while (shared > 0 && shared < base.length && Utf8.isContinuation(base[shared])) {
        shared--;
      }
      byte[] tail = text(random, 1 + random.nextInt(3 * CodePointIndex.BLOCK));
      byte[] target = new byte[shared + tail.length];
      System.arraycopy(base, 0, target, 0, shared);
      System.arraycopy(tail, 0, target, shared, tail.length);

      // When
      CodePointIndex extended = CodePointIndex.extend(known, target, shared);
      CodePointIndex fresh = CodePointIndex.of(target);

      // Then: every conversion agrees with a fresh index of the same bytes
      for (int offset = 0; offset <= target.length; offset++) {
        if (offset < target.length && Utf8.isContinuation(target[offset])) {
          continue;
        }
        long codePoint = fresh.codePointAt(offset);
        assertThat(extended.codePointAt(offset))
            .as("shared %d, offset %d", shared, offset)
            .isEqualTo(codePoint);
        assertThat(extended.byteOffsetOf(codePoint)).isEqualTo(offset);
      }
      assertThat(extended.codePoints()).isEqualTo(fresh.codePoints());
    }
  }

  private static byte[] text(Random random, int minBytes) {
    StringBuilder text = new StringBuilder();
    while (text.toString().getBytes(StandardCharsets.UTF_8).length < minBytes) {
      text.append(ALPHABET[random.nextInt(ALPHABET.length)]);
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }
}
