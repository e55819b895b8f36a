package io.prefixlog.bridge.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.kv.KvMarkers;
import io.prefixlog.core.kv.KvSource;
import io.prefixlog.schemas.kv.KvEvent;
import io.prefixlog.schemas.kv.KvEventBatch;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a source stands, from its records in kv.events read newest first. */
class ResumeFoldTest {
  private static final KvSource SOURCE = KvSource.of("tcp://10.0.3.17:5557", 0, "kv");

  @Test
  void shouldResumeAfterTheLastBatchWithItAsTheAnchor() {
    // Given
    ResumeFold fold = new ResumeFold();

    // When: newest first
    fold.older(batch(7, 1_750_000_001.75));
    fold.older(batch(6, 1_750_000_001.5));

    // Then: settled at 7; 6 changes nothing
    assertThat(fold.settled()).isTrue();
    assertThat(fold.result()).isEqualTo(new ResumePoint(8, 7, 1_750_000_001.75));
  }

  @Test
  void shouldContinueAfterTheGapMarkersThatFollowTheLastBatch() {
    // Given
    ResumeFold fold = new ResumeFold();

    // When: ... batch 5, gap 6..7 @8, gap 8..8 @8 (8 did not decode)
    fold.older(KvMarkers.gap(SOURCE, 8, 8, 8, 0));
    fold.older(KvMarkers.gap(SOURCE, 8, 6, 7, 0));
    assertThat(fold.settled()).isFalse();
    fold.older(batch(5, 1_750_000_001.25));

    // Then
    assertThat(fold.result()).isEqualTo(new ResumePoint(9, 5, 1_750_000_001.25));
  }

  @Test
  void shouldStartANewRunWithoutAnchorAfterARestartMarker() {
    // Given
    ResumeFold fold = new ResumeFold();

    // When: ... batch 9, restart @1, gap 0..0 @1 (a refused batch 0 of the new run)
    fold.older(KvMarkers.gap(SOURCE, 1, 0, 0, 0));
    fold.older(KvMarkers.restart(SOURCE, 1, 0));
    fold.older(batch(9, 1_750_000_002.0));

    // Then: batch 9 was the old run's
    assertThat(fold.result()).isEqualTo(new ResumePoint(1, -1, Double.NaN));
    assertThat(fold.result().hasAnchor()).isFalse();
  }

  @Test
  void shouldKnowNothingOfASourceWithoutRecords() {
    // Given
    ResumeFold fold = new ResumeFold();

    // When / Then
    assertThat(fold.settled()).isFalse();
    assertThat(fold.result()).isNull();
  }

  @Test
  void shouldCoverOnlyGapMarkersWhenTheLogHoldsNothingElse() {
    // Given: the log's beginning reached with only a first-contact gap in it
    ResumeFold fold = new ResumeFold();

    // When
    fold.older(KvMarkers.gap(SOURCE, 5, 0, 4, 0));

    // Then
    assertThat(fold.settled()).isFalse();
    assertThat(fold.result()).isEqualTo(new ResumePoint(5, -1, Double.NaN));
  }

  private static KvEventBatch batch(long seq, double engineTs) {
    return new KvEventBatch(
        KvEventBatch.SCHEMA_VERSION,
        SOURCE.id(),
        SOURCE.endpoint(),
        SOURCE.dataParallelRank(),
        SOURCE.topic(),
        seq,
        1_700_000_000_000L,
        engineTs,
        null,
        null,
        null,
        List.<KvEvent>of());
  }
}
