package io.prefixlog.schemas;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.schemas.WireSchemas.Golden;
import io.prefixlog.schemas.delta.DeltaOp;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.schemas.request.RawRequestEvent;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Records that hold a body (or bytes that may be one) never show it in {@code toString()}. */
class RecordRedactionTest {

  private static final String SECRET = "SECRET-PROMPT-TEXT";
  private static final String SECRET_BASE64 =
      Base64.getEncoder().encodeToString(("{\"prompt\":\"" + SECRET + "\"}").getBytes(UTF_8));

  @Test
  void shouldNotShowTheBodyOfARawRequestEvent() {
    // Given
    RawRequestEvent event =
        new RawRequestEvent(
            1,
            "r-1",
            1L,
            "4a0e6c2d8b1f3957",
            "fallback",
            "192.0.2.0/24",
            "curl/8.5.0",
            Map.of("x-session-id", "s"),
            "POST",
            "/v1/completions",
            "m",
            "{\"prompt\":\"" + SECRET + "\"}",
            "utf-8",
            31L,
            "0".repeat(64),
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null);

    // When
    String text = event.toString();

    // Then
    assertThat(text)
        .isEqualTo(
            "RawRequestEvent[requestId=r-1, sessionKey=4a0e6c2d8b1f3957, model=m, bodyLen=31,"
                + " body=<redacted>]");
  }

  @Test
  void shouldNotShowTheBodyOrTheInsertedTextOfADeltaRecord() {
    // Given
    DeltaRecord keyframe = deltaRecord("full", SECRET, "utf-8", null);
    DeltaRecord delta =
        deltaRecord(
            "delta", null, null, List.of(new DeltaOp.Copy(0, 4), new DeltaOp.Insert(SECRET)));

    // When
    String keyframeText = keyframe.toString();
    String deltaText = delta.toString();

    // Then
    assertThat(keyframeText)
        .isEqualTo(
            "DeltaRecord[sessionKey=4a0e6c2d8b1f3957, chain=0a1b2c3d, seq=2, kind=full, baseSeq=null, ops=0,"
                + " bodyLen=18, body=<redacted>]");
    assertThat(deltaText)
        .isEqualTo(
            "DeltaRecord[sessionKey=4a0e6c2d8b1f3957, chain=0a1b2c3d, seq=2, kind=delta, baseSeq=null, ops=2,"
                + " bodyLen=18, body=<redacted>]");
  }

  @Test
  void shouldNotShowTheTextOfAnInsertOp() {
    // Given
    DeltaOp insert = new DeltaOp.Insert(SECRET);

    // When
    String text = insert.toString();

    // Then
    assertThat(text).isEqualTo("Insert[chars=18]");
  }

  @Test
  void shouldNotShowTheOriginalBytesOfADeadLetter() {
    // Given
    DeadLetter letter =
        new DeadLetter(
            1,
            1L,
            "stream-app",
            "prefixlog.requests.raw",
            0,
            7L,
            "invalid_json",
            "EOF at 1:31",
            Base64.getEncoder().encodeToString(SECRET.getBytes(UTF_8)),
            SECRET_BASE64);

    // When
    String text = letter.toString();

    // Then
    assertThat(text)
        .isEqualTo(
            "DeadLetter[sourceTopic=prefixlog.requests.raw, sourcePartition=0, sourceOffset=7,"
                + " reason=invalid_json, detail=EOF at 1:31]");
  }

  static Stream<Golden> examplesHoldingContent() {
    return Stream.of("raw-request-event.v1", "delta-record.v2", "delta-record.v3", "dead-letter.v1")
        .flatMap(name -> WireSchemas.valid(WireSchemas.byName(name)).stream())
        // A metadata-only event holds no content to hide.
        .filter(golden -> !golden.tree().has("body_omitted"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examplesHoldingContent")
  void shouldNotShowAnyContentOfTheGoldenExamples(Golden golden) {
    // Given
    Object record = JsonSerde.of(golden.schema().type()).fromBytes(golden.bytes());
    List<String> content = new ArrayList<>();
    golden.tree().path("ops").forEach(op -> content.add(op.path("text").asText("")));
    for (String field : List.of("body", "original_key", "original_value")) {
      content.add(golden.tree().path(field).asText(""));
    }
    content.removeIf(String::isEmpty);

    // When
    String text = record.toString();

    // Then
    assertThat(content).isNotEmpty();
    for (String secret : content) {
      assertThat(text).doesNotContain(secret);
    }
  }

  private static DeltaRecord deltaRecord(
      String kind, String body, String encoding, List<DeltaOp> ops) {
    return new DeltaRecord(
        3,
        "4a0e6c2d8b1f3957",
        2L,
        "0a1b2c3d",
        "r-2",
        2L,
        "m",
        "fallback",
        null,
        null,
        null,
        "POST",
        "/v1/completions",
        kind,
        null,
        body,
        encoding,
        null,
        null,
        ops,
        null,
        18L,
        "0".repeat(64),
        0L,
        null,
        null,
        null,
        null,
        null);
  }
}
