package io.prefixlog.core.text;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.schemas.request.BodyEncoding;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8Test {
  private static final String[] PIECES = {"a", "b", " ", "é", "ü", "€", "中", "😀", "🍞", "\n"};

  @Test
  void shouldAdvanceByCodePointsExactlyFromEveryCodePointStart() {
    Random random = new Random(20261126);
    for (int trial = 0; trial < 200; trial++) {
      // Mostly ASCII runs (the word-at-a-time path) broken by multi-byte code points at random
      StringBuilder text = new StringBuilder();
      int length = random.nextInt(120);
      for (int i = 0; i < length; i++) {
        text.append(random.nextInt(4) == 0 ? PIECES[random.nextInt(PIECES.length)] : "x");
      }
      byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
      List<Integer> offsets = codePointOffsets(text.toString());
      for (int from = 0; from < offsets.size(); from++) {
        for (int n = 0; n <= offsets.size() - from + 2; n++) {
          int expected = from + n < offsets.size() ? offsets.get(from + n) : -1;
          assertThat(Utf8.advance(bytes, offsets.get(from), n))
              .as("text %s from code point %d by %d", text, from, n)
              .isEqualTo(expected);
        }
      }
      assertThat(Utf8.countCodePoints(bytes, 0, bytes.length))
          .isEqualTo(text.codePointCount(0, text.length()));
    }
  }

  /** Byte offsets of every code point start, then the end. */
  private static List<Integer> codePointOffsets(String text) {
    List<Integer> offsets = new ArrayList<>();
    int offset = 0;
    for (int i = 0; i < text.length(); ) {
      offsets.add(offset);
      int cp = text.codePointAt(i);
      offset += new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
      i += Character.charCount(cp);
    }
    offsets.add(offset);
    return offsets;
  }

  @Test
  void shouldJudgeUtf8ExactlyAsTheStrictDecoderDoes() {
    Random random = new Random(42);
    byte[] alphabet = "a\"\\\n".getBytes(StandardCharsets.UTF_8);
    for (int n = 0; n < 20_000; n++) {
      byte[] b = new byte[random.nextInt(40)];
      for (int i = 0; i < b.length; i++) {
        int pick = random.nextInt(4);
        b[i] = pick == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
        if (pick == 1) {
          b[i] = (byte) (0x80 | random.nextInt(64)); // continuation bytes, often valid
        } else if (pick == 2) {
          int[] leads = {0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xC1};
          b[i] = (byte) leads[random.nextInt(leads.length)];
        }
      }
      assertThat(Utf8.isStrict(b, 0, b.length))
          .as("bytes %s", java.util.Arrays.toString(b))
          .isEqualTo(BodyEncoding.strictUtf8(b).isPresent());
    }
  }
}
