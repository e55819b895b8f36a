package io.prefixlog.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.request.RawEventFrame;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Framed raw events (version 2): a JSON header, then the body's bytes as they are. */
class FramedEventValidatorTest {
  private static final String KEY = "0123456789abcdef0123456789abcdef";

  private final RawEventValidator validator = new RawEventValidator(1024);

  @Test
  void shouldAcceptAFramedEventAndReturnItsBodyBytesAsTheyAre() {
    // Given: a body with quotes, backslashes, a newline and non-ASCII, none of it escaped
    byte[] body = utf8("{\"a\":\"é\\n\\\"x\\\"\",\n\"b\":\"😀\"}");

    // When
    RawEventValidator.Outcome outcome = validator.validate(KEY, framed(header(body), body));

    // Then
    assertThat(outcome.rejected()).isNull();
    assertThat(outcome.accepted().body()).isEqualTo(body);
    assertThat(outcome.accepted().utf8()).isTrue();
    assertThat(outcome.accepted().event().schemaVersion()).isEqualTo(2);
    assertThat(outcome.accepted().event().body()).isNull();
  }

  @Test
  void shouldAcceptABodyThatIsNotUtf8WithoutAnyEncoding() {
    // Given
    byte[] body = {(byte) 0xFF, 0x00, 0x41, (byte) 0xC0, (byte) 0x80};

    // When
    RawEventValidator.Outcome outcome = validator.validate(null, framed(header(body), body));

    // Then
    assertThat(outcome.accepted().body()).isEqualTo(body);
    assertThat(outcome.accepted().utf8()).isFalse();
  }

  @Test
  void shouldRejectEachBadFrameWithItsReason() {
    byte[] body = utf8("hi");
    byte[] good = framed(header(body), body);
    // a frame cut inside its preamble, and one whose header length runs past the value
    assertReason(Arrays.copyOf(good, 6), Rejection.INVALID_FRAME);
    byte[] overlong = good.clone();
    ByteBuffer.wrap(overlong, 4, 4).putInt(good.length);
    assertReason(overlong, Rejection.INVALID_FRAME);
    // a body cut short, or one byte longer, than body_len
    assertReason(Arrays.copyOf(good, good.length - 1), Rejection.BODY_MISMATCH);
    assertReason(Arrays.copyOf(good, good.length + 1), Rejection.BODY_MISMATCH);
    // another body of the same length
    assertReason(framed(header(body), utf8("ho")), Rejection.BODY_MISMATCH);
    // a header that is not JSON, says version 1, or carries the body as a field
    assertReason(framed(utf8("{\"schema_version\":2,"), body), Rejection.INVALID_JSON);
    assertReason(
        framed(header(body).replace("\"schema_version\":2", "\"schema_version\":1"), body),
        Rejection.UNKNOWN_SCHEMA_VERSION);
    assertReason(
        framed(header(body).replace("\"body_len\"", "\"body\":\"hi\",\"body_len\""), body),
        Rejection.INVALID_FIELD);
    // another session than the record key's, and a body over the capture limit
    assertThat(validator.validate("t", good).rejected().reason()).isEqualTo(Rejection.KEY_MISMATCH);
    byte[] large = new byte[2000];
    assertReason(framed(header(large), large), Rejection.BODY_TOO_LARGE);
  }

  private void assertReason(byte[] value, String reason) {
    RawEventValidator.Outcome outcome = validator.validate(KEY, value);
    assertThat(outcome.accepted()).isNull();
    assertThat(outcome.rejected().reason()).isEqualTo(reason);
  }

  private static String header(byte[] body) {
    return "{\"schema_version\":2,\"request_id\":\"r1\",\"ts\":1,\"session_key\":\""
        + KEY
        + "\","
        + "\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body_len\":"
        + body.length
        + ",\"body_sha256\":\""
        + Sha256.hex(body)
        + "\"}";
  }

  private static byte[] framed(String header, byte[] body) {
    return framed(utf8(header), body);
  }

  private static byte[] framed(byte[] header, byte[] body) {
    return RawEventFrame.frame(header, body);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
