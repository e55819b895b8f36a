package io.prefixlog.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.request.RawEventFrame;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code capture_id} and {@code client_request_id} in every form of raw event: read through, and an
 * empty one refused (an empty capture id would make every event of its session one capture to the
 * dedup).
 */
class CaptureIdsTest {
  private static final String KEY = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";
  private static final byte[] BODY = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);

  private final RawEventValidator validator = new RawEventValidator(1024);

  @Test
  void shouldReadBothIdsAndIdentifyTheEventByItsCaptureIdInEveryForm() {
    // Given
    String ids = "\"capture_id\":\"c-1\",\"client_request_id\":\"gw-7\",";

    for (byte[] value : List.of(version1(ids), framed(ids), metadataOnly(ids))) {
      // When
      RawEventValidator.Outcome outcome = validator.validate(KEY, value);

      // Then
      assertThat(outcome.rejected()).isNull();
      assertThat(outcome.accepted().event().captureId()).isEqualTo("c-1");
      assertThat(outcome.accepted().event().clientRequestId()).isEqualTo("gw-7");
      assertThat(outcome.accepted().event().captureIdentity()).isEqualTo("c-1");
    }
  }

  @Test
  void shouldIdentifyAnEventWithoutACaptureIdByItsRequestIdAndCaptureTime() {
    // When
    RawEventValidator.Outcome outcome = validator.validate(KEY, version1(""));

    // Then
    assertThat(outcome.accepted().event().captureId()).isNull();
    assertThat(outcome.accepted().event().captureIdentity()).isEqualTo("r1@1700000000123");
  }

  @Test
  void shouldRefuseAnEmptyCaptureIdOrClientRequestIdInEveryForm() {
    for (String field : List.of("capture_id", "client_request_id")) {
      // Given
      String ids = "\"" + field + "\":\"\",";

      for (byte[] value : List.of(version1(ids), framed(ids), metadataOnly(ids))) {
        // When
        RawEventValidator.Outcome outcome = validator.validate(KEY, value);

        // Then
        assertThat(outcome.accepted()).isNull();
        assertThat(outcome.rejected())
            .isEqualTo(new Rejection(Rejection.INVALID_FIELD, field + " must not be empty"));
      }
    }
  }

  private static byte[] version1(String ids) {
    return utf8(
        "{\"schema_version\":1,\"request_id\":\"r1\","
            + ids
            + "\"ts\":1700000000123,\"session_key\":\""
            + KEY
            + "\",\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":"
            + "\"{\\\"model\\\":\\\"m\\\"}\",\"body_encoding\":\"utf-8\",\"body_len\":"
            + BODY.length
            + ",\"body_sha256\":\""
            + Sha256.hex(BODY)
            + "\"}");
  }

  private static byte[] framed(String ids) {
    return RawEventFrame.frame(
        utf8(
            "{\"schema_version\":2,\"request_id\":\"r1\","
                + ids
                + "\"ts\":1700000000123,\"session_key\":\""
                + KEY
                + "\",\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body_len\":"
                + BODY.length
                + ",\"body_sha256\":\""
                + Sha256.hex(BODY)
                + "\"}"),
        BODY);
  }

  private static byte[] metadataOnly(String ids) {
    return utf8(
        "{\"schema_version\":1,\"request_id\":\"r1\","
            + ids
            + "\"ts\":1700000000123,\"session_key\":\""
            + KEY
            + "\",\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body_len\":"
            + BODY.length
            + ",\"body_sha256\":\""
            + Sha256.hex(BODY)
            + "\",\"body_omitted\":\"sampled_out\"}");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
