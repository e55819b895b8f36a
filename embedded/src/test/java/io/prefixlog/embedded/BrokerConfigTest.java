package io.prefixlog.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerConfigTest {
  @Test
  void shouldRenderCombinedKraftPropertiesWithExtrasOverridingInPlaceOrAppended() {
    // Given
    KafkaBroker.Options options =
        KafkaBroker.Options.defaults(Path.of("/srv/prefixlog/kafka"))
            .withBrokerProperty("log.retention.ms", "60000")
            .withBrokerProperty("auto.create.topics.enable", "true")
            .withBrokerProperty("ssl.keystore.location", "C:\\keys");

    // When
    String text = BrokerConfig.render(BrokerConfig.serverProperties(options, 9092, 9093));

    // Then
    assertThat(text)
        .isEqualTo(
            """
            # Written by prefixlog KafkaBroker; rewritten on every start.
            process.roles=broker,controller
            node.id=1
            controller.quorum.voters=1@127.0.0.1:9093
            listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093
            advertised.listeners=PLAINTEXT://127.0.0.1:9092
            controller.listener.names=CONTROLLER
            inter.broker.listener.name=PLAINTEXT
            listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
            log.dirs=/srv/prefixlog/kafka/data
            num.partitions=1
            offsets.topic.replication.factor=1
            offsets.topic.num.partitions=1
            transaction.state.log.replication.factor=1
            transaction.state.log.min.isr=1
            transaction.state.log.num.partitions=1
            share.coordinator.state.topic.replication.factor=1
            share.coordinator.state.topic.min.isr=1
            share.coordinator.state.topic.num.partitions=1
            group.initial.rebalance.delay.ms=0
            num.network.threads=2
            num.io.threads=2
            background.threads=2
            log.segment.bytes=34603008
            log.cleaner.dedupe.buffer.size=4194304
            log.cleaner.backoff.ms=1000
            auto.create.topics.enable=true
            message.max.bytes=34603008
            replica.fetch.max.bytes=34603008
            log.retention.ms=60000
            ssl.keystore.location=C:\\\\keys
            """);
  }

  @Test
  void shouldTreatADataDirWithoutMetaPropertiesAsUnformatted(@TempDir Path dir) throws Exception {
    // Given
    Files.createDirectories(dir.resolve("data"));
    boolean before = KafkaBroker.isFormatted(dir);

    // When
    Files.writeString(dir.resolve("data/meta.properties"), "version=1\n");

    // Then
    assertThat(before).isFalse();
    assertThat(KafkaBroker.isFormatted(dir)).isTrue();
  }

  @Test
  void shouldAcceptTheLargestRecordTheAppsWriteForSixteenMebibyteBodies() {
    // Given: the topics allow 2 x 16 MiB + 1 MiB = 34603008-byte records (a keyframe's body may
    // grow by a third in JSON or base64)
    long largestRecord = 34_603_008L;

    // When
    java.util.Map<String, String> settings = KafkaBroker.singleNodeSettings();

    // Then
    assertThat(Long.parseLong(settings.get("message.max.bytes")))
        .isGreaterThanOrEqualTo(largestRecord);
    assertThat(Long.parseLong(settings.get("log.segment.bytes")))
        .isGreaterThanOrEqualTo(largestRecord);
    assertThat(Long.parseLong(settings.get("replica.fetch.max.bytes")))
        .isGreaterThanOrEqualTo(largestRecord);
  }
}
