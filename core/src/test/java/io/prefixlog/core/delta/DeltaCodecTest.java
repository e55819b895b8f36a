package io.prefixlog.core.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.schemas.delta.DeltaOp;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DeltaCodecTest {
  private final DeltaEncoder encoder = DeltaEncoder.withDefaults();

  @Test
  void shouldEncodeAnAppendedTurnAsCopyInsertCopy() {
    // Given
    String history =
        "{\"messages\":[" + "{\"role\":\"user\",\"content\":\"hello there\"}".repeat(20);
    String base = history + "],\"model\":\"m\"}";
    String target =
        history + ",{\"role\":\"assistant\",\"content\":\"héllo 👋\"}],\"model\":\"m\"}";

    // When
    EncodedDelta delta = encoder.encode(bytes(base), bytes(target));

    // Then
    int historyCodePoints = history.codePointCount(0, history.length());
    assertThat(delta.ops())
        .containsExactly(
            new DeltaOp.Copy(0, historyCodePoints),
            new DeltaOp.Insert(",{\"role\":\"assistant\",\"content\":\"héllo 👋\"}"),
            new DeltaOp.Copy(historyCodePoints, "],\"model\":\"m\"}".length()));
    assertThat(delta.prefixCodePoints()).isEqualTo(historyCodePoints);
    assertRebuilds(base, target, delta);
  }

  @Test
  void shouldCostOnlyTheEditWhenTheSystemPromptTimestampChanges() {
    // Given
    String system = "You are helpful. Current time: 2026-11-21T10:00:00Z. " + lorem(8000);
    String rest = lorem(20000);
    String base = "{\"system\":\"" + system + "\",\"history\":\"" + rest + "\"}";
    String target =
        "{\"system\":\""
            + system.replace("10:00:00", "10:05:17")
            + "\",\"history\":\""
            + rest
            + " and one more question?\"}";

    // When
    EncodedDelta delta = encoder.encode(bytes(base), bytes(target));

    // Then: a few bytes around the edit plus the new question, not the 28 KB after the edit
    assertThat(delta.insertedBytes()).isLessThan(200);
    assertThat(delta.copiedBytes()).isGreaterThan(28000);
    assertRebuilds(base, target, delta);
  }

  @Test
  void shouldCopyNewTextThatRepeatsAPassageOfTheSharedPrefix() {
    // Given: an agent turn that shows a file again and quotes part of an earlier tool result,
    // both far back in the history that the two bodies share
    String file = lorem(12000);
    String quoted = lorem(30000).substring(20000, 20600);
    String history =
        "{\"messages\":[{\"role\":\"tool\",\"content\":\""
            + file
            + "\"},{\"role\":\"tool\",\"content\":\""
            + lorem(30000)
            + "\"}";
    String base = history + "],\"model\":\"m\"}";
    String target =
        history
            + ",{\"role\":\"assistant\",\"content\":\"editing: "
            + quoted
            + "\"},{\"role\":\"tool\",\"content\":\""
            + file
            + "\"}],\"model\":\"m\"}";

    // When
    EncodedDelta delta = encoder.encode(bytes(base), bytes(target));

    // Then: the 12 KB file and the 600-character quote are copies, not literal text
    assertThat(delta.insertedBytes()).isLessThan(300);
    assertRebuilds(base, target, delta);
  }

  @Test
  void shouldEncodeIdenticalBodiesAsOneCopy() {
    String body = "{\"a\":\"ü\"}";
    EncodedDelta delta = encoder.encode(bytes(body), bytes(body));
    assertThat(delta.ops())
        .containsExactly(new DeltaOp.Copy(0, body.codePointCount(0, body.length())));
    assertThat(delta.insertedBytes()).isZero();
  }

  @Test
  void shouldRebuildRandomEditsOfMultilingualTextExactly() {
    // Given
    Random random = new Random(42);
    for (int round = 0; round < 500; round++) {
      String base = randomText(random, random.nextInt(4000));
      String target = mutate(random, base);

      // When
      EncodedDelta delta = encoder.encode(bytes(base), bytes(target));

      // Then
      assertRebuilds(base, target, delta);
    }
  }

  @Test
  void shouldCountCopiesLongerThanAnIndexBlockInCodePoints() {
    // Given: bodies of 20,000 to 60,000 characters, many of several bytes, so that the shared
    // prefix and the copies after an edit span many of the code-point index's 4 KiB blocks
    Random random = new Random(7);
    for (int round = 0; round < 40; round++) {
      String base = randomText(random, 20_000 + random.nextInt(40_000));
      String target = mutate(random, base);

      // When
      EncodedDelta delta = encoder.encode(bytes(base), bytes(target));

      // Then
      assertRebuilds(base, target, delta);
      long copied = 0;
      for (DeltaOp op : delta.ops()) {
        if (op instanceof DeltaOp.Copy copy) {
          copied += copy.len();
        }
      }
      long inserted = 0;
      for (DeltaOp op : delta.ops()) {
        if (op instanceof DeltaOp.Insert insert) {
          inserted += insert.text().codePointCount(0, insert.text().length());
        }
      }
      assertThat(copied + inserted).isEqualTo(target.codePointCount(0, target.length()));
    }
  }

  @Test
  void shouldSplitNoCodePointWhenMatchesEndInsideAMultiByteCharacter() {
    // Given: é (C3 A9) and è (C3 A8) share their first byte
    String common = lorem(200);
    String base = common + "é" + common;
    String target = common + "è" + common;

    // When
    EncodedDelta delta = encoder.encode(bytes(base), bytes(target));

    // Then
    assertThat(delta.ops()).contains(new DeltaOp.Insert("è"));
    assertRebuilds(base, target, delta);
  }

  @Test
  void shouldRejectACopyBeyondTheBase() {
    assertThatThrownBy(() -> DeltaDecoder.apply(bytes("héllo"), List.of(new DeltaOp.Copy(2, 4))))
        .isInstanceOf(DeltaException.class)
        .hasMessage("copy of code points [2, 6) reaches past the end of the base (5 code points)");
  }

  @Test
  void shouldApplyCopiesThatGoBackwardsInTheBase() throws DeltaException {
    byte[] rebuilt =
        DeltaDecoder.apply(
            bytes("aé😀bc"),
            List.of(new DeltaOp.Copy(3, 2), new DeltaOp.Insert("-"), new DeltaOp.Copy(0, 3)));
    assertThat(new String(rebuilt, StandardCharsets.UTF_8)).isEqualTo("bc-aé😀");
  }

  static void assertRebuilds(String base, String target, EncodedDelta delta) {
    try {
      byte[] rebuilt = DeltaDecoder.apply(bytes(base), delta.ops());
      assertThat(rebuilt).isEqualTo(bytes(target));
    } catch (DeltaException e) {
      throw new AssertionError(e);
    }
    assertThat(delta.copiedBytes() + delta.insertedBytes()).isEqualTo(bytes(target).length);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String lorem(int length) {
    StringBuilder s = new StringBuilder();
    Random random = new Random(length);
    String[] words = {
      "lorem", "ipsum", "dolor", "sit", "amet", "tool_call", "{\\\"x\\\":1}", "\\n"
    };
    while (s.length() < length) {
      s.append(words[random.nextInt(words.length)]).append(' ');
    }
    return s.substring(0, length);
  }

  private static final String[] ALPHABET = {
    "a", "b", "c", " ", "\n", "é", "ß", "中", "文", "😀", "🧪", "\"", "\\", "{", "}", "x", "y", "z"
  };

  static String randomText(Random random, int length) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < length; i++) {
      s.append(ALPHABET[random.nextInt(random.nextInt(4) == 0 ? ALPHABET.length : 5)]);
    }
    return s.toString();
  }

  static String mutate(Random random, String base) {
    StringBuilder s = new StringBuilder(base);
    int edits = random.nextInt(6);
    for (int e = 0; e < edits; e++) {
      int at =
          s.length() == 0
              ? 0
              : s.offsetByCodePoints(0, random.nextInt(s.codePointCount(0, s.length()) + 1));
      switch (random.nextInt(3)) {
        case 0 -> s.insert(at, randomText(random, random.nextInt(300)));
        case 1 -> {
          int end = Math.min(s.length(), at + random.nextInt(200));
          while (end < s.length() && Character.isLowSurrogate(s.charAt(end))) {
            end++;
          }
          s.delete(at, end);
        }
        default -> s.append(randomText(random, random.nextInt(100)));
      }
    }
    return s.toString();
  }
}
