package io.prefixlog.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BodyFieldsTest {
  @Test
  void shouldReadTheTopLevelFieldsOfAChatBody() {
    // Given: a chat body with escapes, non-ASCII and nesting in its messages
    byte[] body =
        ("{\"model\":\"llama-3\",\"messages\":[{\"role\":\"user\",\"content\":\"a \\\"quoted\\\""
                + " é 中文 \uD83D\uDE00 \\n\\u0041 tab\\t\"}],\"temperature\":0.7,\"stream\":true,"
                + "\"user\":\"u-1\",\"session_id\":\"s-1\",\"n\":null,\"x\":[1,-2.5e3,{},[]]}")
            .getBytes(StandardCharsets.UTF_8);

    // When
    BodyFields fields = BodyFields.read(body);

    // Then
    assertThat(fields).isEqualTo(new BodyFields("llama-3", "s-1", "u-1", true));
  }

  @Test
  void shouldLetALaterFieldWinAndReadEscapedValues() {
    // Given: "model" twice, the later one escaped; "stream" true, then false
    byte[] body =
        "{\"model\":\"first\",\"stream\":true,\"model\":\"m\\u0041\",\"stream\":false}"
            .getBytes(StandardCharsets.UTF_8);

    // When
    BodyFields fields = BodyFields.read(body);

    // Then
    assertThat(fields).isEqualTo(new BodyFields("mA", null, null, false));
  }

  @Test
  void shouldGiveNothingForABodyThatIsNotAJsonObject() {
    // Given / When / Then
    assertThat(BodyFields.read("[1,2]".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(BodyFields.EMPTY);
    assertThat(BodyFields.read("not json".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(BodyFields.EMPTY);
    assertThat(BodyFields.read(new byte[0])).isEqualTo(BodyFields.EMPTY);
  }

  @Test
  void shouldGiveNothingForABodyCutInsideAString() {
    // Given: a truncated capture, cut inside the messages after "model"
    byte[] body =
        "{\"model\":\"m\",\"messages\":[{\"content\":\"cut her".getBytes(StandardCharsets.UTF_8);

    // When / Then: the parser fails at the cut, and what it read before is not kept
    assertThat(BodyFields.read(body)).isEqualTo(BodyFields.EMPTY);
  }
}
