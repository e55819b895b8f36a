package io.prefixlog.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvSourceTest {

  @Test
  void shouldNameASourceByEndpointRankAndTopic() {
    // When
    KvSource source = KvSource.of("tcp://10.0.3.17:5558", 1, "kv@10.0.3.17@llama");

    // Then
    assertThat(source.id()).isEqualTo("tcp://10.0.3.17:5558|dp1|kv@10.0.3.17@llama");
    assertThat(KvSource.of("tcp://h:5557", 0, "").id()).isEqualTo("tcp://h:5557|dp0|");
  }

  @Test
  void shouldRefuseAnEndpointWithABarANegativeRankOrAMismatchedId() {
    assertThatThrownBy(() -> KvSource.of("tcp://h|x:1", 0, ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("endpoint must be non-blank without '|': tcp://h|x:1");
    assertThatThrownBy(() -> KvSource.of("tcp://h:1", -1, ""))
        .hasMessage("dataParallelRank must be >= 0: -1");
    assertThatThrownBy(() -> new KvSource("x", "tcp://h:1", 0, "kv"))
        .hasMessage("id x is not tcp://h:1|dp0|kv");
  }
}
