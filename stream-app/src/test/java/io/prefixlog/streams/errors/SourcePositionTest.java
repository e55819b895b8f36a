package io.prefixlog.streams.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.schemas.request.RawEventFrame;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The key a null-keyed raw event travels under to the session state: its {@code session_key}, in
 * either form of event, so that it reaches the task that holds its session.
 */
class SourcePositionTest {
  private static final String SESSION = "0123456789abcdef0123456789abcdef";

  @Test
  void shouldTakeTheSessionKeyOfAVersion1EventAndOfAFramedOne() {
    // Given
    byte[] header =
        ("{\"schema_version\":2,\"request_id\":\"r1\",\"ts\":1,\"session_key\":\""
                + SESSION
                + "\",\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body_len\":2,"
                + "\"body_sha256\":\"x\"}")
            .getBytes(StandardCharsets.UTF_8);
    byte[] framed = RawEventFrame.frame(header, "{}".getBytes(StandardCharsets.UTF_8));
    byte[] version1 =
        ("{\"schema_version\":1,\"session_key\":\"" + SESSION + "\",\"body\":\"{}\"}")
            .getBytes(StandardCharsets.UTF_8);

    // When
    String ofFramed = SourcePosition.sessionKeyOf(framed);
    String ofVersion1 = SourcePosition.sessionKeyOf(version1);

    // Then
    assertThat(ofFramed).isEqualTo(SESSION);
    assertThat(ofVersion1).isEqualTo(SESSION);
  }

  @Test
  void shouldGiveTheEmptyKeyToAValueWithoutASessionKey() {
    // Given
    byte[] cut = RawEventFrame.frame(new byte[0], new byte[0]);
    cut = java.util.Arrays.copyOf(cut, 6);

    // When / Then
    assertThat(SourcePosition.sessionKeyOf(null)).isEmpty();
    assertThat(SourcePosition.sessionKeyOf("not json".getBytes(StandardCharsets.UTF_8))).isEmpty();
    assertThat(SourcePosition.sessionKeyOf("{\"session_key\":7}".getBytes(StandardCharsets.UTF_8)))
        .isEmpty();
    assertThat(SourcePosition.sessionKeyOf(cut)).isEmpty();
  }
}
