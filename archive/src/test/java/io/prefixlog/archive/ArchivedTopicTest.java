package io.prefixlog.archive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The archived topics, tables, connectors and control topics of a prefix. The expectations were
 * written against the hard-coded topic names, so taking them from {@code Topics} changes nothing.
 */
class ArchivedTopicTest {
  @Test
  void shouldArchiveTheDeltasLookupsKvEventsAndRequestMetadataTopicsOfAPrefix() {
    // Given
    String prefix = "p.";

    // When
    List<ArchivedTopic> topics = ArchivedTopic.all(prefix);

    // Then
    assertThat(topics)
        .containsExactly(
            new ArchivedTopic(
                "prefixlog-archive-deltas",
                "p.session.deltas",
                "prefixlog.session_deltas",
                "p.archive.control.deltas"),
            new ArchivedTopic(
                "prefixlog-archive-lookups",
                "p.chunk.lookups",
                "prefixlog.chunk_lookups",
                "p.archive.control.lookups"),
            new ArchivedTopic(
                "prefixlog-archive-kv-events",
                "p.kv.events",
                "prefixlog.kv_events",
                "p.archive.control.kv-events"),
            new ArchivedTopic(
                "prefixlog-archive-requests",
                "p.requests.metadata",
                "prefixlog.requests_metadata",
                "p.archive.control.requests"));
  }

  @Test
  void shouldNameTheTopicsWithoutAPrefixWhenThePrefixIsEmpty() {
    // Given
    String prefix = "";

    // When
    List<String> topics = ArchivedTopic.all(prefix).stream().map(ArchivedTopic::topic).toList();

    // Then
    assertThat(topics)
        .containsExactly("session.deltas", "chunk.lookups", "kv.events", "requests.metadata");
  }

  @Test
  void shouldTakeTheDeltasTopicAsTheOneBodiesAreRebuiltFrom() {
    // Given
    String prefix = "prefixlog.";

    // When
    ArchivedTopic deltas = ArchivedTopic.deltas(prefix);

    // Then
    assertThat(deltas.topic()).isEqualTo("prefixlog.session.deltas");
    assertThat(deltas.table()).isEqualTo("prefixlog.session_deltas");
  }
}
