package io.prefixlog.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.request.RawEventFrame;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code session_key} as its schema has it ({@code $defs/session_key}: 16 to 64 lower-case hex
 * digits), in every form of raw event: erasure and every reader split the turn keys {@code
 * session_key/chain/seq} at their first {@code /}, so a key that holds one would name another
 * session's turns.
 */
class SessionKeyPatternTest {
  private static final String SIXTEEN = "0123456789abcdef";
  private static final String SIXTY_FOUR = SIXTEEN.repeat(4);
  private static final byte[] BODY = utf8("{\"model\":\"m\"}");

  private final RawEventValidator validator = new RawEventValidator(1024);

  @Test
  void shouldAcceptSixteenToSixtyFourLowerCaseHexDigitsInEveryForm() {
    // Given
    List<String> keys = List.of(SIXTEEN, SIXTY_FOUR, "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58");

    for (String key : keys) {
      // When
      List<RawEventValidator.Outcome> outcomes =
          List.of(
              validator.validate(key, version1(key)),
              validator.validate(key, framed(key)),
              validator.validate(key, metadataOnly(key)));

      // Then
      assertThat(outcomes).allSatisfy(o -> assertThat(o.rejected()).as(key).isNull());
    }
  }

  @Test
  void shouldRejectEveryOtherSessionKeyAsAnInvalidFieldInEveryForm() {
    // Given: a slash (it would split the turn keys), upper case, too short, too long, empty, a
    // raw id
    List<List<String>> cases =
        List.of(
            List.of(
                SIXTEEN + "/" + SIXTEEN,
                "session_key must be 16 to 64 lower-case hex digits (a keyed hash), got 33"
                    + " characters with a '/', which would split the keys session_key/chain/seq"),
            List.of(
                SIXTEEN.toUpperCase(java.util.Locale.ROOT),
                "session_key must be 16 to 64 lower-case hex digits (a keyed hash), got 16"
                    + " characters"),
            List.of(
                SIXTEEN.substring(1),
                "session_key must be 16 to 64 lower-case hex digits (a keyed hash), got 15"
                    + " characters"),
            List.of(
                SIXTY_FOUR + "0",
                "session_key must be 16 to 64 lower-case hex digits (a keyed hash), got 65"
                    + " characters"),
            List.of(
                "",
                "session_key must be 16 to 64 lower-case hex digits (a keyed hash), got 0"
                    + " characters"),
            List.of(
                "conversation-42",
                "session_key must be 16 to 64 lower-case hex digits (a keyed hash), got 15"
                    + " characters"));

    for (List<String> c : cases) {
      String key = c.get(0);
      // When: with the key as the record key, and without one (the ingest endpoint)
      List<RawEventValidator.Outcome> outcomes =
          List.of(
              validator.validate(key, version1(key)),
              validator.validate(null, version1(key)),
              validator.validate(key, framed(key)),
              validator.validate(null, framed(key)),
              validator.validate(key, metadataOnly(key)),
              validator.validate(null, metadataOnly(key)));

      // Then
      assertThat(outcomes)
          .allSatisfy(
              o -> {
                assertThat(o.accepted()).as(key).isNull();
                assertThat(o.rejected())
                    .isEqualTo(new Rejection(Rejection.INVALID_FIELD, c.get(1)));
              });
    }
  }

  private static byte[] version1(String key) {
    return utf8(
        "{\"schema_version\":1,\"request_id\":\"r1\",\"ts\":1,\"session_key\":\""
            + key
            + "\",\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":"
            + "\"{\\\"model\\\":\\\"m\\\"}\",\"body_encoding\":\"utf-8\",\"body_len\":"
            + BODY.length
            + ",\"body_sha256\":\""
            + Sha256.hex(BODY)
            + "\"}");
  }

  private static byte[] framed(String key) {
    return RawEventFrame.frame(
        utf8(
            "{\"schema_version\":2,\"request_id\":\"r1\",\"ts\":1,\"session_key\":\""
                + key
                + "\",\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body_len\":"
                + BODY.length
                + ",\"body_sha256\":\""
                + Sha256.hex(BODY)
                + "\"}"),
        BODY);
  }

  private static byte[] metadataOnly(String key) {
    return utf8(
        "{\"schema_version\":1,\"request_id\":\"r1\",\"ts\":1,\"session_key\":\""
            + key
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
