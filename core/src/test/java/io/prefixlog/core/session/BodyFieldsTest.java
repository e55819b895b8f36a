package io.prefixlog.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BodyFieldsTest {
  @Test
  void shouldScanAPlainChatBodyWithoutJackson() {
    // Given: a chat body with escapes, non-ASCII and nesting in its messages
    byte[] body =
        ("{\"model\":\"llama-3\",\"messages\":[{\"role\":\"user\",\"content\":\"a \\\"quoted\\\""
                + " é 中文 \uD83D\uDE00 \\n\\u0041 tab\\t\"}],\"temperature\":0.7,\"stream\":true,"
                + "\"user\":\"u-1\",\"session_id\":\"s-1\",\"n\":null,\"x\":[1,-2.5e3,{},[]]}")
            .getBytes(StandardCharsets.UTF_8);

    // When
    BodyFields fast = TopLevelScan.read(body, 0, body.length);

    // Then
    assertThat(fast).isEqualTo(new BodyFields("llama-3", "s-1", "u-1", true));
    assertThat(BodyFields.readWithJackson(body, 0, body.length)).isEqualTo(fast);
  }

  @Test
  void shouldLeaveWhatItDoesNotMirrorToJackson() {
    // Given: Jackson's loop walks into an object given as "model"; an escaped value; a cut body
    List<String> bodies =
        List.of(
            "{\"model\":{\"model\":\"inner\"},\"user\":\"u\"}",
            "{\"model\":\"m\\u0041\"}",
            "{\"model\":\"m\",\"messages\":[{\"content\":\"cut her",
            " {\"model\":\"m\"}");
    for (String text : bodies) {
      byte[] body = text.getBytes(StandardCharsets.UTF_8);

      // When
      BodyFields fast = TopLevelScan.read(body, 0, body.length);

      // Then
      assertThat(fast).as(text).isNull();
      assertThat(BodyFields.read(body)).isEqualTo(BodyFields.readWithJackson(body, 0, body.length));
    }
    assertThat(BodyFields.read(bodies.get(0).getBytes(StandardCharsets.UTF_8)).model())
        .isEqualTo("inner");
    assertThat(BodyFields.read(bodies.get(1).getBytes(StandardCharsets.UTF_8)).model())
        .isEqualTo("mA");
  }

  @Test
  void shouldReadWhatJacksonReadsFromRandomAndMutatedBodies() {
    // Given: random bodies with the read fields anywhere, repeated, of every type, and then
    // mutated: cut, a byte replaced, JSON's significant bytes inserted
    Random random = new Random(16);
    byte[] significant = "{}[]\",:\\ \n0-.eEtfnu\u0001\u00e9".getBytes(StandardCharsets.UTF_8);
    int fast = 0;
    for (int round = 0; round < 30_000; round++) {
      byte[] body = randomBody(random).getBytes(StandardCharsets.UTF_8);
      byte[] mutated =
          switch (round % 4) {
            case 0 -> body;
            case 1 -> Arrays.copyOf(body, random.nextInt(body.length + 1));
            case 2 -> {
              byte[] copy = body.clone();
              copy[random.nextInt(copy.length)] =
                  random.nextBoolean()
                      ? (byte) random.nextInt(256)
                      : significant[random.nextInt(significant.length)];
              yield copy;
            }
            default -> {
              int at = random.nextInt(body.length + 1);
              byte[] copy = new byte[body.length + 1];
              System.arraycopy(body, 0, copy, 0, at);
              copy[at] = significant[random.nextInt(significant.length)];
              System.arraycopy(body, at, copy, at + 1, body.length - at);
              yield copy;
            }
          };

      // When
      BodyFields scanned = TopLevelScan.read(mutated, 0, mutated.length);

      // Then
      BodyFields jackson = BodyFields.readWithJackson(mutated, 0, mutated.length);
      if (scanned != null) {
        fast++;
        assertThat(scanned)
            .as("body %s", new String(mutated, StandardCharsets.ISO_8859_1))
            .isEqualTo(jackson);
      }
      assertThat(BodyFields.read(mutated)).isEqualTo(jackson);
    }
    // Most of the unmutated quarter (all but escaped values of the read fields), and mutations
    // that stay valid, went the fast way: the comparison above covered it.
    assertThat(fast).isGreaterThan(7_000);
  }

  private static String randomBody(Random random) {
    StringBuilder out = new StringBuilder("{");
    int fields = random.nextInt(7);
    List<String> names =
        List.of("model", "session_id", "user", "stream", "messages", "temperature", "modelx");
    for (int f = 0; f < fields; f++) {
      if (f > 0) {
        out.append(random.nextBoolean() ? "," : " ,\n ");
      }
      String name = names.get(random.nextInt(names.size()));
      out.append('"').append(name).append("\":");
      boolean read = List.of("model", "session_id", "user", "stream").contains(name);
      out.append(randomValue(random, read ? 3 : 0));
    }
    return out.append('}').toString();
  }

  /** A value; at {@code depth} 3 and more, scalars only. */
  private static String randomValue(Random random, int depth) {
    int kind = random.nextInt(depth >= 3 ? 6 : 8);
    return switch (kind) {
      case 0, 1 -> randomString(random);
      case 2 -> "true";
      case 3 -> random.nextBoolean() ? "false" : "null";
      case 4 -> List.of("0", "-1", "12.5", "3e7", "-0.25E-3", "42").get(random.nextInt(6));
      case 5 -> randomString(random);
      case 6 -> {
        StringBuilder a = new StringBuilder("[");
        int n = random.nextInt(4);
        for (int k = 0; k < n; k++) {
          a.append(k > 0 ? "," : "").append(randomValue(random, depth + 1));
        }
        yield a.append(']').toString();
      }
      default -> {
        StringBuilder o = new StringBuilder("{");
        int n = random.nextInt(4);
        for (int k = 0; k < n; k++) {
          o.append(k > 0 ? "," : "")
              .append(randomString(random))
              .append(':')
              .append(randomValue(random, depth + 1));
        }
        yield o.append('}').toString();
      }
    };
  }

  private static String randomString(Random random) {
    List<String> pieces =
        List.of(
            "a",
            "role",
            "content",
            " ",
            "é",
            "中",
            "\uD83D\uDE00",
            "\\\"",
            "\\\\",
            "\\n",
            "\\u00e9",
            "\\/",
            "text of a prompt ");
    StringBuilder s = new StringBuilder("\"");
    int n = random.nextInt(12);
    for (int k = 0; k < n; k++) {
      s.append(pieces.get(random.nextInt(pieces.size())));
    }
    return s.append('"').toString();
  }
}
