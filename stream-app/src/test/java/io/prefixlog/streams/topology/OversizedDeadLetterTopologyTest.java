package io.prefixlog.streams.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.RecordLimits;
import io.prefixlog.schemas.Topics;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OversizedDeadLetterTopologyTest {
  private static final String SESSION = "0123456789abcdef0123456789abcdef";

  @TempDir Path stateDir;

  private TopologyTestDriver driver;
  private StreamAppConfig config;
  private TestInputTopic<String, byte[]> raw;

  private TestOutputTopic<byte[], byte[]> start() {
    config =
        StreamAppConfig.defaults(
            Map.of("PREFIXLOG_MAX_BODY_BYTES", "4KiB", "PREFIXLOG_STATE_DIR", stateDir.toString()));
    driver =
        new TopologyTestDriver(
            PrefixlogTopology.build(config, new StreamAppMetrics(new SimpleMeterRegistry())),
            StreamApp.streamsProperties(config));
    Topics topics = config.topics();
    raw =
        driver.createInputTopic(
            topics.requestsRaw().name(),
            Serdes.String().serializer(),
            Serdes.ByteArray().serializer());
    return driver.createOutputTopic(
        topics.deadLetters().name(),
        Serdes.ByteArray().deserializer(),
        Serdes.ByteArray().deserializer());
  }

  @AfterEach
  void close() {
    if (driver != null) {
      driver.close();
    }
  }

  @Test
  void shouldKeepASmallInputWholeWithoutTruncationFields() {
    // Given
    TestOutputTopic<byte[], byte[]> dlq = start();
    byte[] input = RawEvents.utf8("{\"schema_version\":1,");

    // When
    raw.pipeInput(SESSION, input);

    // Then
    byte[] value = dlq.readValue();
    DeadLetter letter = JsonSerde.of(DeadLetter.class).fromBytes(value);
    assertThat(letter.reason()).isEqualTo("invalid_json");
    assertThat(Base64.getDecoder().decode(letter.originalValue())).isEqualTo(input);
    assertThat(new String(value, java.nio.charset.StandardCharsets.UTF_8))
        .doesNotContain("truncated")
        .doesNotContain("original_value_len");
    assertThat(dlq.isEmpty()).isTrue();
  }

  @Test
  void shouldKeepTheDeadLetterOfAnInputTooBigToCopyWithinTheRecordLimit() {
    // Given: 4 KiB bodies, so records up to 1 MiB + 8 KiB; a raw record of 1 MiB is a legal input
    // whose base64 copy (1.33 MiB) would not be
    TestOutputTopic<byte[], byte[]> dlq = start();
    byte[] body = new byte[1 << 20];
    Arrays.fill(body, (byte) 'x');
    byte[] input = RawEvents.bytes(RawEvents.of(SESSION, body));

    // When
    raw.pipeInput(SESSION, input);

    // Then
    List<TestRecord<byte[], byte[]>> letters = dlq.readRecordsToList();
    assertThat(letters).hasSize(1);
    byte[] value = letters.get(0).value();
    DeadLetter letter = JsonSerde.of(DeadLetter.class).fromBytes(value);
    assertThat(letter.reason()).isEqualTo("body_too_large");
    assertThat(letter.sourceTopic()).isEqualTo("prefixlog.requests.raw");
    assertThat(letter.sourceOffset()).isEqualTo(0L);
    assertThat((long) value.length + letters.get(0).key().length)
        .isLessThanOrEqualTo(config.maxRecordBytes());
    long budget = RecordLimits.deadLetterValueBudget(config.maxRecordBytes(), SESSION.length());
    assertThat(letter.truncated()).isTrue();
    assertThat(letter.originalValueLen()).isEqualTo(input.length);
    assertThat(letter.originalValueSha256()).isEqualTo(Sha256.hex(input));
    assertThat(Base64.getDecoder().decode(letter.originalValue()))
        .isEqualTo(Arrays.copyOf(input, (int) budget));
    assertThat(Base64.getDecoder().decode(letter.originalKey())).isEqualTo(RawEvents.utf8(SESSION));
  }
}
