package io.prefixlog.tools.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which archived rows the erasure acknowledgements hide. */
class ArchiveHistoryTest {

  @Test
  void shouldHideTheRowsOfAnErasedSessionCapturedUpToItsAcknowledgement() {
    // Given
    ArchiveHistory.Erasures erasures = new ArchiveHistory.Erasures(Map.of("s1", 1_000L), "");

    // When / Then
    assertThat(erasures.hides("s1", 999)).isTrue();
    assertThat(erasures.hides("s1", 1_000)).isTrue();
    assertThat(erasures.hides("s1", 1_001)).as("captured after the erase").isFalse();
    assertThat(erasures.hides("s2", 999)).as("another session").isFalse();
  }

  @Test
  void shouldHideEveryRowWhileTheAcknowledgementsCannotBeRead() {
    // Given
    ArchiveHistory.Erasures unknown = ArchiveHistory.Erasures.NOT_READ;
    ArchiveHistory.Erasures failed =
        new ArchiveHistory.Erasures(Map.of(), "cannot read p.erasures: timeout");

    // When / Then
    assertThat(unknown.hides("s1", 0)).isTrue();
    assertThat(failed.hides("any", Long.MAX_VALUE)).isTrue();
  }
}
