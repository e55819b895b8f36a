package io.prefixlog.schemas.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RawEventFrameTest {
  @Test
  void shouldFrameAHeaderAndABodyAndFindThemAgain() {
    // Given
    byte[] header = "{\"schema_version\":2}".getBytes(StandardCharsets.UTF_8);
    byte[] body = {0, (byte) 0xFF, '"', '\\', '\n'};

    // When
    byte[] value = RawEventFrame.frame(header, body);
    RawEventFrame.Parts parts = RawEventFrame.parse(value);

    // Then: the magic, the length, then the two as they were
    assertThat(Arrays.copyOf(value, 8)).containsExactly(0, 'P', 'L', 2, 0, 0, 0, 20);
    assertThat(Arrays.copyOfRange(value, parts.headerOffset(), parts.headerOffset() + 20))
        .isEqualTo(header);
    assertThat(parts.body()).isEqualTo(body);
    assertThat(RawEventFrame.isFramed(value)).isTrue();
  }

  @Test
  void shouldNeverTakeAJsonEventForAFrame() {
    assertThat(RawEventFrame.isFramed("{\"schema_version\":1}".getBytes(StandardCharsets.UTF_8)))
        .isFalse();
    assertThat(RawEventFrame.isFramed(new byte[] {0, 'P', 'L'})).isFalse();
    assertThat(RawEventFrame.isFramed(null)).isFalse();
  }

  @Test
  void shouldRefuseAFrameWhoseHeaderDoesNotFit() {
    byte[] value = RawEventFrame.frame(new byte[] {'{', '}'}, new byte[0]);
    value[7] = 3;
    assertThatThrownBy(() -> RawEventFrame.parse(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the frame's header length 3 does not fit its 2 bytes after the preamble");
  }

  @Test
  void shouldReadAFramedEventAsVersion1CarriesIt() {
    // Given: a version 1 event and a body that is not UTF-8
    byte[] body = {'{', (byte) 0xFF, '}'};
    RawRequestEvent v1 =
        new RawRequestEvent(
            1,
            "r1",
            5L,
            "0123456789abcdef0123456789abcdef",
            "fallback",
            null,
            null,
            null,
            "POST",
            "/v1/chat/completions",
            null,
            "e/99",
            "base64",
            3L,
            "c0ffee" + "0".repeat(58),
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null);

    // When
    byte[] framed = RawEventFrame.frame(v1, body);

    // Then: its header has no body and says version 2; read back, the event is the version 1 one
    String header =
        new String(
            framed,
            RawEventFrame.PREAMBLE_BYTES,
            framed.length - RawEventFrame.PREAMBLE_BYTES - body.length,
            StandardCharsets.UTF_8);
    assertThat(header).startsWith("{\"schema_version\":2,").doesNotContain("\"body\"");
    assertThat(RawEventFrame.readAsVersion1(framed)).isEqualTo(v1);
    assertThat(
            RawEventFrame.readAsVersion1(
                io.prefixlog.schemas.json.JsonSerde.of(RawRequestEvent.class).toBytes(v1)))
        .isEqualTo(v1);
  }
}
