package io.prefixlog.streams.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.streams.admin.RetentionCheck.Retention;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetentionCheckTest {
  private static final long HOUR = Duration.ofHours(1).toMillis();
  private static final long DAY = Duration.ofDays(1).toMillis();

  private final StreamAppConfig config = StreamAppConfig.defaults(Map.of());

  @Test
  void shouldAcceptTheTopicsAsTheAppCreatesThemAndAsAnOperatorMayTuneThem() {
    // Given: the app's own settings, shorter retentions, the KV state compacted only
    Map<String, Retention> topics = new LinkedHashMap<>();
    topics.put("prefixlog.requests.raw", new Retention("delete", DAY));
    topics.put("prefixlog.kv.events", new Retention("delete", 2 * HOUR));
    topics.put("prefixlog.session.deltas", new Retention("compact,delete", 7 * DAY));
    topics.put("prefixlog.chunk.lookups", new Retention("delete,compact", 3 * DAY));
    topics.put("prefixlog.requests.metadata", new Retention("compact, delete", 7 * DAY));
    topics.put("prefixlog.kv.block-index", new Retention("compact", -1));
    topics.put("prefixlog.kv.source-stats", new Retention("compact", -1));
    topics.put("prefixlog.dlq", new Retention("delete", 7 * DAY));
    topics.put("prefixlog.erasures", new Retention("delete", 30 * DAY));

    // When / Then
    assertThat(RetentionCheck.problems(topics, config)).isEmpty();
  }

  @Test
  void shouldNameEveryTopicThatGrowsWithoutBoundOrOutlivesAGuarantee() {
    // Given: TTL 30 min, seq retention 7 d (the defaults)
    Map<String, Retention> topics = new LinkedHashMap<>();
    topics.put("prefixlog.requests.raw", new Retention("delete", -1));
    topics.put("prefixlog.session.deltas", new Retention("compact", 7 * DAY));
    topics.put("prefixlog.chunk.lookups", new Retention("compact,delete", 8 * DAY));
    topics.put("prefixlog.requests.metadata", new Retention("compact,delete", -1));
    topics.put("prefixlog.dlq", new Retention("compact", DAY));
    topics.put("prefixlog.kv.block-index", new Retention("compact", -1));

    // When
    var problems = RetentionCheck.problems(topics, config);

    // Then
    assertThat(problems)
        .containsExactly(
            "topic prefixlog.requests.raw retention.ms=-1 keeps every record forever",
            "topic prefixlog.session.deltas cleanup.policy=compact never deletes a record (the"
                + " app creates it compact,delete: its keys are unique, so compaction alone never"
                + " shrinks it)",
            "topic prefixlog.chunk.lookups retention.ms=691200000 is above"
                + " PREFIXLOG_SESSION_SEQ_RETENTION (604800000 ms): a session's new chain could"
                + " begin while its older chain's records are kept, and an 8-digit chain id could"
                + " repeat among them",
            "topic prefixlog.requests.metadata retention.ms=-1 keeps every record forever",
            "topic prefixlog.dlq cleanup.policy=compact never deletes a record (the app creates it"
                + " delete)");
  }

  @Test
  void shouldRefuseADeltasTopicThatDropsBasesWithinTheTtl() {
    // Given: the TTL is 30 min
    Map<String, Retention> topics =
        Map.of("prefixlog.session.deltas", new Retention("compact,delete", 30 * 60_000L));

    // When / Then
    assertThat(RetentionCheck.problems(topics, config))
        .containsExactly(
            "topic prefixlog.session.deltas retention.ms=1800000 is not above"
                + " PREFIXLOG_SESSION_TTL (1800000 ms): a delta could name a base that retention"
                + " has already deleted");
  }
}
