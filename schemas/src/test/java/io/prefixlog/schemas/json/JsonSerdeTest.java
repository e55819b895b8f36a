package io.prefixlog.schemas.json;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.kv.BlockIndexEntry;
import io.prefixlog.schemas.kv.KvEventBatch;
import io.prefixlog.schemas.kv.SourceStats;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.Usage;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonSerdeTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      classes = {
        RawRequestEvent.class,
        DeltaRecord.class,
        ChunkLookupRecord.class,
        KvEventBatch.class,
        BlockIndexEntry.class,
        SourceStats.class,
        DeadLetter.class
      })
  void shouldMapNullToNullBothWaysSoThatTombstonesSurvive(Class<?> type) {
    // Given
    JsonSerde<?> serde = JsonSerde.of(type);

    // When
    byte[] written = serde.serializer().serialize("t", null);
    Object read = serde.deserializer().deserialize("t", null);

    // Then
    assertThat(written).isNull();
    assertThat(read).isNull();
    assertThat(serde.fromBytes(null)).isNull();
  }

  @Test
  void shouldWriteNullForATombstoneThroughTheTypedMethod() {
    // Given
    JsonSerde<BlockIndexEntry> serde = JsonSerde.of(BlockIndexEntry.class);

    // When
    byte[] written = serde.toBytes(null);

    // Then
    assertThat(written).isNull();
  }

  @Test
  void shouldLeaveUnknownFieldsOutAndNeverWriteNull() {
    // Given
    JsonSerde<Usage> serde = JsonSerde.of(Usage.class);

    // When
    byte[] written = serde.toBytes(new Usage(412L, null, null));

    // Then
    assertThat(new String(written, UTF_8)).isEqualTo("{\"prompt_tokens\":412}");
  }

  @Test
  void shouldIgnoreFieldsANewerProducerAdded() {
    // Given
    byte[] json = "{\"prompt_tokens\":412,\"reasoning_tokens\":9}".getBytes(UTF_8);

    // When
    Usage usage = JsonSerde.of(Usage.class).fromBytes(json);

    // Then
    assertThat(usage).isEqualTo(new Usage(412L, null, null));
  }

  @Test
  void shouldNotQuoteTheInputWhenItCannotRead() {
    // Given
    byte[] json = "{\"body\":\"SECRET-PROMPT-TEXT\",\"ts\":\"SECRET-TS\"}".getBytes(UTF_8);

    // When
    Throwable thrown = catchThrowable(() -> JsonSerde.of(RawRequestEvent.class).fromBytes(json));

    // Then
    assertThat(thrown)
        .isExactlyInstanceOf(SerializationException.class)
        .hasMessage("cannot read RawRequestEvent: InvalidFormatException at line 1 column 35")
        .hasNoCause();
  }

  @Test
  void shouldReadAStringLongerThanJacksonsDefaultLimitAsALegalBodyCanBe() {
    // Given: a 16 MiB body as base64 is 22.4 million characters, over Jackson's 20 million
    String value = "QUJD".repeat(22_400_000 / 4);
    DeadLetter letter =
        new DeadLetter(1, 1L, "stream-app", null, null, null, "body_too_large", "d", null, value);
    JsonSerde<DeadLetter> serde = JsonSerde.of(DeadLetter.class);

    // When
    DeadLetter read = serde.fromBytes(serde.toBytes(letter));

    // Then
    assertThat(read.originalValue()).isEqualTo(value);
  }
}
