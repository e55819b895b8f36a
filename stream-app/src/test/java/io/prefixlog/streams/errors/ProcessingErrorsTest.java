package io.prefixlog.streams.errors;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.core.metrics.Meters;
import io.prefixlog.schemas.dlq.DeadLetter;
import io.prefixlog.schemas.json.JsonSerde;
import io.prefixlog.streams.StreamApp;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessingErrorsTest {
  @TempDir Path stateDir;

  @Test
  void shouldDeadLetterAnInputThatMakesAProcessorThrowAndGoOnWithTheNext() {
    // Given: a processor that throws on one value, with the app's Streams settings
    StreamAppConfig config =
        StreamAppConfig.defaults(Map.of("PREFIXLOG_STATE_DIR", stateDir.toString()));
    MeterRegistry registry = new SimpleMeterRegistry();
    Topology topology = new Topology();
    topology.addSource("in", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
    topology.addProcessor("explosive", Explosive::new, "in");
    topology.addSink(
        "out", "out", Serdes.String().serializer(), Serdes.String().serializer(), "explosive");
    try (TopologyTestDriver driver =
        new TopologyTestDriver(
            topology, StreamApp.streamsProperties(config, new StreamAppMetrics(registry)))) {
      TestInputTopic<String, String> in =
          driver.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
      TestOutputTopic<String, String> out =
          driver.createOutputTopic(
              "out", Serdes.String().deserializer(), Serdes.String().deserializer());
      TestOutputTopic<byte[], byte[]> dlq =
          driver.createOutputTopic(
              "prefixlog.dlq",
              Serdes.ByteArray().deserializer(),
              Serdes.ByteArray().deserializer());

      // When
      in.pipeInput("k1", "one");
      in.pipeInput("k2", "boom");
      in.pipeInput("k3", "three");

      // Then
      assertThat(out.readValuesToList()).containsExactly("one", "three");
      List<byte[]> letters = dlq.readValuesToList();
      assertThat(letters).hasSize(1);
      DeadLetter letter = JsonSerde.of(DeadLetter.class).fromBytes(letters.get(0));
      assertThat(letter.reason()).isEqualTo("processing_error");
      assertThat(letter.detail())
          .isEqualTo("java.lang.IllegalStateException in processor explosive");
      assertThat(letter.sourceTopic()).isEqualTo("in");
      assertThat(letter.sourceOffset()).isEqualTo(1L);
      assertThat(Base64.getDecoder().decode(letter.originalValue()))
          .isEqualTo("boom".getBytes(StandardCharsets.UTF_8));
      assertThat(Base64.getDecoder().decode(letter.originalKey()))
          .isEqualTo("k2".getBytes(StandardCharsets.UTF_8));
      assertThat(
              Meters.count(registry, "prefixlog_dead_letters_total", "reason", "processing_error"))
          .isEqualTo(1);
    }
  }

  @Test
  void shouldFailTheTaskWhenAPunctuatorThrowsSinceThereIsNoInputToDeadLetter() {
    // Given
    ProcessingErrors handler = new ProcessingErrors();
    handler.configure(
        Map.of(ErrorWiring.CONFIG, new ErrorWiring(new SimpleMeterRegistry(), "prefixlog.dlq")));

    // When: Kafka Streams reports a punctuator's exception without a record
    ProcessingExceptionHandler.Response response =
        handler.handleError(null, null, new IllegalStateException("in a punctuator"));

    // Then: the task fails, and exactly-once aborts what the punctuator wrote
    assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.FAIL);
  }

  private static final class Explosive implements Processor<String, String, String, String> {
    private ProcessorContext<String, String> context;

    @Override
    public void init(ProcessorContext<String, String> context) {
      this.context = context;
    }

    @Override
    public void process(Record<String, String> record) {
      if (record.value().equals("boom")) {
        throw new IllegalStateException("the input " + record.value() + " is not allowed");
      }
      context.forward(record);
    }
  }
}
