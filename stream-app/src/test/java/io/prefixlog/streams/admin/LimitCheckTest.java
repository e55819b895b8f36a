package io.prefixlog.streams.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.streams.StreamAppConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LimitCheckTest {
  @Test
  void shouldNameEveryLimitBelowTheLargestRecordAndNoOther() {
    // Given: 16 MiB bodies need 34603008-byte records
    StreamAppConfig config = StreamAppConfig.defaults(Map.of());
    Map<String, Long> limits = new LinkedHashMap<>();
    limits.put("broker 1 message.max.bytes", 20_971_520L);
    limits.put("topic prefixlog.dlq max.message.bytes", 34_603_008L);
    limits.put("topic prefixlog.dlq segment.bytes", 1_073_741_824L);
    limits.put("topic prefixlog.requests.raw max.message.bytes", 34_603_007L);

    // When
    List<String> low = LimitCheck.shortfalls(limits, config.maxRecordBytes());

    // Then
    assertThat(low)
        .containsExactly(
            "broker 1 message.max.bytes=20971520",
            "topic prefixlog.requests.raw max.message.bytes=34603007");
  }
}
