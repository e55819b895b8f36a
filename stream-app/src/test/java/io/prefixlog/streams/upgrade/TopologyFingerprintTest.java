package io.prefixlog.streams.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.StreamAppMetrics;
import io.prefixlog.streams.topology.PrefixlogTopology;
import java.util.Map;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

class TopologyFingerprintTest {

  /**
   * The default topology's fingerprint, as running groups compare it. When it changes, the change
   * is one a rolling upgrade cannot make: the group check refuses instances of the new topology
   * while any of the old one runs (the README's upgrade section says how to deploy it).
   */
  @Test
  void shouldPinTheFingerprintOfTheDefaultTopology() {
    // When
    TopologyFingerprint fingerprint = TopologyFingerprint.of(topology(Map.of()));

    // Then
    assertThat(fingerprint.fingerprint()).isEqualTo("812a30f8d3117845");
    assertThat(fingerprint.names())
        .contains(
            "processor:session-delta",
            "store:session-state",
            "sink:session-deltas-sink",
            "source:raw-requests",
            "topic:prefixlog.requests.raw",
            "topic:requests-by-session-repartition");
  }

  @Test
  void shouldGiveTheSameFingerprintToTheSameTopologyBuiltAgain() {
    // When
    TopologyFingerprint first = TopologyFingerprint.of(topology(Map.of()));
    TopologyFingerprint second = TopologyFingerprint.of(topology(Map.of()));

    // Then
    assertThat(second).isEqualTo(first);
  }

  @Test
  void shouldTellTopologiesApartThatSettingsOrAnAddedNodeShape() {
    // Given
    TopologyFingerprint full = TopologyFingerprint.of(topology(Map.of()));
    Topology extended = topology(Map.of());
    extended.addProcessor("extra-node", Ignore::new, PrefixlogTopology.SESSION_DELTA_PROCESSOR);

    // When
    TopologyFingerprint withoutLookups =
        TopologyFingerprint.of(topology(Map.of("PREFIXLOG_CHUNK_LOOKUPS_ENABLED", "false")));
    TopologyFingerprint withNode = TopologyFingerprint.of(extended);

    // Then
    assertThat(withoutLookups.fingerprint()).isNotEqualTo(full.fingerprint());
    assertThat(full.names()).containsAll(withoutLookups.names());
    assertThat(full.names()).contains("processor:chunk-lookup");
    assertThat(withoutLookups.names()).doesNotContain("processor:chunk-lookup");
    assertThat(withNode.fingerprint()).isNotEqualTo(full.fingerprint());
    assertThat(withNode.names()).containsAll(full.names()).contains("processor:extra-node");
    assertThat(withNode.names()).hasSize(full.names().size() + 1);
  }

  private static Topology topology(Map<String, String> settings) {
    return PrefixlogTopology.build(
        StreamAppConfig.defaults(settings), new StreamAppMetrics(new SimpleMeterRegistry()));
  }

  private static final class Ignore implements Processor<Object, Object, Void, Void> {
    @Override
    public void process(Record<Object, Object> record) {}
  }
}
