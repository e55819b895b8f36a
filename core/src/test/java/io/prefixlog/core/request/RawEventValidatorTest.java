package io.prefixlog.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.text.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class RawEventValidatorTest {
  private static final String KEY = "0123456789abcdef0123456789abcdef";

  private final RawEventValidator validator = new RawEventValidator(1024);

  private static String event(String body, String encoding, long len, String sha) {
    return "{\"schema_version\":1,\"request_id\":\"r1\",\"ts\":1,\"session_key\":\""
        + KEY
        + "\","
        + "\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":\""
        + body
        + "\",\"body_encoding\":\""
        + encoding
        + "\",\"body_len\":"
        + len
        + ",\"body_sha256\":\""
        + sha
        + "\"}";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldAcceptAUtf8BodyAndReturnItsExactBytes() {
    String json = event("{\\\"a\\\":\\\"é\\\"}", "utf-8", 10, Sha256.hex(bytes("{\"a\":\"é\"}")));
    RawEventValidator.Outcome outcome = validator.validate(KEY, bytes(json));
    assertThat(outcome.rejected()).isNull();
    assertThat(outcome.accepted().body()).isEqualTo(bytes("{\"a\":\"é\"}"));
    assertThat(outcome.accepted().utf8()).isTrue();
  }

  @Test
  void shouldAcceptABase64BodyThatIsNotUtf8() {
    byte[] body = {(byte) 0xFF, 0x00, 0x41};
    String json = event(Base64.getEncoder().encodeToString(body), "base64", 3, Sha256.hex(body));
    RawEventValidator.Outcome outcome = validator.validate(null, bytes(json));
    assertThat(outcome.accepted().body()).isEqualTo(body);
    assertThat(outcome.accepted().utf8()).isFalse();
  }

  @Test
  void shouldRejectEachBadInputWithItsReason() {
    String sha = Sha256.hex(bytes("hi"));
    assertReason("[1,2]", Rejection.INVALID_JSON, "the value is not a JSON object");
    assertReason("{\"schema_version\":1", Rejection.INVALID_JSON, null);
    assertReason("{\"ts\":1}", Rejection.MISSING_FIELD, "schema_version is missing");
    assertReason(
        event("hi", "utf-8", 2, sha).replace("\"schema_version\":1", "\"schema_version\":\"1\""),
        Rejection.UNKNOWN_SCHEMA_VERSION,
        "schema_version is not the integer 1");
    assertReason(
        event("hi", "utf-8", 2, sha).replace(",\"request_id\":\"r1\"", ""),
        Rejection.MISSING_FIELD,
        "request_id is missing");
    assertReason(
        event("hi", "utf-8", 2, sha).replace("\"ts\":1", "\"ts\":-5"),
        Rejection.INVALID_FIELD,
        "ts must be a non-negative integer");
    assertReason(
        event("hi", "latin-1", 2, sha),
        Rejection.INVALID_FIELD,
        "body_encoding must be utf-8 or base64, got \"latin-1\"");
    assertReason(
        event("!!", "base64", 2, sha), Rejection.INVALID_FIELD, "body is not valid base64");
    assertReason(
        event("hi", "utf-8", 3, sha),
        Rejection.BODY_MISMATCH,
        "body has 2 bytes but body_len says 3");
    assertReason(
        event("ho", "utf-8", 2, sha),
        Rejection.BODY_MISMATCH,
        "body bytes do not match body_sha256");
    assertReason(
        event("x".repeat(2000), "utf-8", 2000, sha),
        Rejection.BODY_TOO_LARGE,
        "body_len 2000 exceeds the capture limit of 1024");
    assertReason(
        event("hi", "utf-8", 2, sha).replace("\"ts\":1", "\"ts\":\"1\""),
        Rejection.INVALID_FIELD,
        "ts must be a non-negative integer");
    assertReason(
        event("hi", "utf-8", 2, sha).replace("\"body_len\":2", "\"body_len\":2.5"),
        Rejection.INVALID_FIELD,
        "body_len must be a non-negative integer");
    assertReason(
        event("hi", "utf-8", 2, sha).replace("\"method\":\"POST\"", "\"method\":7"),
        Rejection.INVALID_FIELD,
        "method must be a string");
    RawEventValidator.Outcome wrongKey =
        validator.validate("other", bytes(event("hi", "utf-8", 2, sha)));
    assertThat(wrongKey.rejected().reason()).isEqualTo(Rejection.KEY_MISMATCH);
  }

  private void assertReason(String json, String reason, String detail) {
    RawEventValidator.Outcome outcome = validator.validate(null, bytes(json));
    assertThat(outcome.accepted()).isNull();
    assertThat(outcome.rejected().reason()).isEqualTo(reason);
    if (detail != null) {
      assertThat(outcome.rejected().detail()).isEqualTo(detail);
    }
  }
}
