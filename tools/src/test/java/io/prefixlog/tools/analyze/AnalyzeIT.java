package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.embedded.KafkaCluster;
import io.prefixlog.embedded.junit.KafkaExtension;
import io.prefixlog.tools.Command;
import io.prefixlog.tools.analyze.TraceLines.Req;
import io.prefixlog.tools.cli.Terminal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code analyze} against a real broker: the lookups topic, read as compaction leaves it. */
@ExtendWith(KafkaExtension.class)
class AnalyzeIT {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int analyze(String... args) {
    out.reset();
    err.reset();
    Terminal terminal =
        new Terminal(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            Map.of(),
            false);
    return new AnalyzeCommand(terminal).run(args);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  void shouldAnalyseTheLookupsTopicAsTheLatestRecordOfEveryRequest(KafkaCluster kafka)
      throws Exception {
    // Given: a trace's records on 3 partitions, each request first with a stale record that is
    // replaced later, and one extra request that is then erased by a tombstone
    String prefix = "analyze-it.";
    String topic = prefix + "chunk.lookups";
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
    }
    List<Req> trace = TraceLines.random(11, 40, List.of("m1", "m2"));
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
            new StringSerializer(),
            new StringSerializer())) {
      for (Req r : trace) {
        Req stale = Req.of(r.timestamp(), r.model(), r.chunkSize(), 16, 0xdead);
        producer.send(
            new ProducerRecord<>(topic, r.requestId(), TraceLines.prefixlog(stale, "bytes")));
      }
      Req erased = Req.of(1_763_700_000, "m1", 16, 16, 0xbeef);
      producer.send(new ProducerRecord<>(topic, "erased", TraceLines.prefixlog(erased, "bytes")));
      for (Req r : trace) {
        producer.send(new ProducerRecord<>(topic, r.requestId(), TraceLines.prefixlog(r, "bytes")));
      }
      producer.send(new ProducerRecord<>(topic, "erased", null));
      producer.flush();
    }
    Path file =
        Files.write(
            dir.resolve("final.jsonl"),
            new ArrayList<>(trace.stream().map(r -> TraceLines.prefixlog(r, "bytes")).toList()));

    // When
    int fromTopic =
        analyze(
            "--bootstrap",
            kafka.bootstrapServers(),
            "--topic-prefix",
            prefix,
            "--csv",
            dir.resolve("topic").toString(),
            "--capacity",
            "30",
            "--window",
            "10m");
    String topicOut = out();
    int fromFile =
        analyze(
            "--file",
            file.toString(),
            "--csv",
            dir.resolve("file").toString(),
            "--capacity",
            "30",
            "--window",
            "10m");

    // Then
    assertThat(fromTopic).as(topicOut).isEqualTo(Command.OK);
    assertThat(fromFile).isEqualTo(Command.OK);
    assertThat(topicOut)
        .startsWith(
            "analyze: "
                + topic
                + " at "
                + kafka.bootstrapServers()
                + ": 3 partitions, "
                + String.format(java.util.Locale.ROOT, "%,d", 2 * trace.size() + 2)
                + " records, ")
        .contains(
            "  1 tombstone, "
                + String.format(java.util.Locale.ROOT, "%,d", trace.size() + 1)
                + " replaced by a later record of the same request_id\n");
    assertThat(Files.readString(dir.resolve("topic/curve.csv")))
        .isEqualTo(Files.readString(dir.resolve("file/curve.csv")));
    assertThat(Files.readString(dir.resolve("topic/rolling.csv")))
        .isEqualTo(Files.readString(dir.resolve("file/rolling.csv")));
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void shouldSayClearlyThatTheTopicDoesNotExist(KafkaCluster kafka) {
    // When
    int code = analyze("--bootstrap", kafka.bootstrapServers(), "--topic-prefix", "absent.");

    // Then
    assertThat(code).isEqualTo(Command.FAILED);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "prefixlog analyze: topic absent.chunk.lookups does not exist at "
                + kafka.bootstrapServers()
                + " (the stream app creates it; check --topic-prefix)\n");
  }
}
