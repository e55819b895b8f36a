package io.prefixlog.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UnitsTest {
  @Test
  void shouldFormatCountsBytesAndSeconds() {
    assertThat(Units.count(1234567)).isEqualTo("1,234,567");
    assertThat(Units.count(1, "record")).isEqualTo("1 record");
    assertThat(Units.count(0, "record")).isEqualTo("0 records");
    assertThat(Units.bytes(999)).isEqualTo("999 B");
    assertThat(Units.bytes(1500)).isEqualTo("1.5 kB");
    assertThat(Units.bytes(45_300_000)).isEqualTo("45.3 MB");
    assertThat(Units.seconds(1_250_000_000L)).isEqualTo("1.3 s");
  }
}
