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
}
