package io.prefixlog.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvMarkersTest {
  private static final KvSource SOURCE = KvSource.of("tcp://10.0.3.17:5557", 0, "kv");

  @Test
  void shouldWriteAGapMarkerWithItsRangeAndNoEvents() {
    // When
    String json = KvBatchSchema.json(KvMarkers.gap(SOURCE, 20117, 20001, 20116, 1749633512774L));

    // Then
    assertThat(json)
        .isEqualTo(
            "{\"schema_version\":1,\"source\":\"tcp://10.0.3.17:5557|dp0|kv\","
                + "\"endpoint\":\"tcp://10.0.3.17:5557\",\"data_parallel_rank\":0,\"topic\":\"kv\","
                + "\"seq\":20117,\"ts\":1749633512774,\"marker\":\"gap\",\"missing_from\":20001,"
                + "\"missing_to\":20116}");
    assertThat(KvBatchSchema.errors(KvMarkers.gap(SOURCE, 5, 5, 5, 1))).isEmpty();
  }

  @Test
  void shouldWriteARestartMarkerWithoutARange() {
    // When
    String json = KvBatchSchema.json(KvMarkers.restart(SOURCE, 0, 1749633650032L));

    // Then
    assertThat(json)
        .isEqualTo(
            "{\"schema_version\":1,\"source\":\"tcp://10.0.3.17:5557|dp0|kv\","
                + "\"endpoint\":\"tcp://10.0.3.17:5557\",\"data_parallel_rank\":0,\"topic\":\"kv\","
                + "\"seq\":0,\"ts\":1749633650032,\"marker\":\"restart\"}");
    assertThat(KvBatchSchema.errors(KvMarkers.restart(SOURCE, 0, 1))).isEmpty();
  }

  @Test
  void shouldRefuseAnEmptyOrNegativeRange() {
    assertThatThrownBy(() -> KvMarkers.gap(SOURCE, 9, 5, 4, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("gap range must be 0 <= from <= to: 5..4");
  }
}
