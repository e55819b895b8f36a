package io.prefixlog.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

import io.prefixlog.schemas.Topic.CleanupPolicy;
import org.junit.jupiter.api.Test;

class TopicsTest {

  @Test
  void shouldNameEveryTopicUnderThePrefixWithTheCleanupPolicyOfTheDesign() {
    // Given
    String prefix = "x.";

    // When
    Topics topics = Topics.withPrefix(prefix);

    // Then
    assertThat(topics.all())
        .extracting(Topic::name, t -> t.cleanupPolicy().config())
        .containsExactly(
            tuple("x.requests.raw", "delete"),
            tuple("x.kv.events", "delete"),
            tuple("x.session.deltas", "compact,delete"),
            tuple("x.chunk.lookups", "compact,delete"),
            tuple("x.requests.metadata", "compact,delete"),
            tuple("x.kv.block-index", "compact"),
            tuple("x.kv.source-stats", "compact"),
            tuple("x.dlq", "delete"),
            tuple("x.erasures", "delete"));
  }

  @Test
  void shouldExposeEachTopicUnderItsOwnAccessor() {
    // Given
    Topics topics = Topics.withPrefix("x.");

    // When
    Topic<?, ?>[] byAccessor = {
      topics.requestsRaw(),
      topics.kvEvents(),
      topics.sessionDeltas(),
      topics.chunkLookups(),
      topics.requestsMetadata(),
      topics.blockIndex(),
      topics.sourceStats(),
      topics.deadLetters(),
      topics.erasures()
    };

    // Then
    assertThat(byAccessor).containsExactlyElementsOf(topics.all());
    assertThat(topics.blockIndex().cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT);
  }

  @Test
  void shouldUseTheDefaultPrefixOfTheDesign() {
    // Given
    String prefix = Topics.DEFAULT_PREFIX;

    // When
    Topics topics = Topics.withPrefix(prefix);

    // Then
    assertThat(prefix).isEqualTo("prefixlog.");
    assertThat(topics.requestsRaw().name()).isEqualTo("prefixlog.requests.raw");
    assertThat(topics.deadLetters().name()).isEqualTo("prefixlog.dlq");
  }

  @Test
  void shouldAllowAnEmptyPrefixButNotANullOne() {
    // Given
    String empty = "";

    // When
    Topics topics = Topics.withPrefix(empty);
    Throwable thrown = catchThrowable(() -> Topics.withPrefix(null));

    // Then
    assertThat(topics.sessionDeltas().name()).isEqualTo("session.deltas");
    assertThat(thrown).isExactlyInstanceOf(NullPointerException.class).hasMessage("prefix");
  }

  @Test
  void shouldNameTheComponentThatHoldsNoTopic() {
    // Given: every topic but the chunk lookups
    Topics complete = Topics.withPrefix("x.");
    Topics missing =
        new Topics(
            complete.requestsRaw(),
            complete.kvEvents(),
            complete.sessionDeltas(),
            null,
            complete.requestsMetadata(),
            complete.blockIndex(),
            complete.sourceStats(),
            complete.deadLetters(),
            complete.erasures());

    // When
    Throwable thrown = catchThrowable(missing::all);

    // Then
    assertThat(thrown).isExactlyInstanceOf(NullPointerException.class).hasMessage("chunkLookups");
  }
}
