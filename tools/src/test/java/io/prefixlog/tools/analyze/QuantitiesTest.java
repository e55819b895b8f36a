package io.prefixlog.tools.analyze;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuantitiesTest {
  @Test
  void shouldReadCapacitiesInChunksOrBytes() {
    assertThat(Quantities.capacity("4096")).isEqualTo(new Quantities.Capacity("4096", 4096, -1));
    assertThat(Quantities.capacity(" 4096 chunks ").chunks()).isEqualTo(4096);
    assertThat(Quantities.capacity("40GiB"))
        .isEqualTo(new Quantities.Capacity("40GiB", -1, 40L << 30));
    assertThat(Quantities.capacity("500 MB").bytes()).isEqualTo(500_000_000L);
    assertThat(Quantities.capacity("1.5TiB").bytes()).isEqualTo(3L << 39);
    assertThat(Quantities.capacity("40GiB").chunks(32L << 20)).isEqualTo(1280);
    assertThat(Quantities.capacity("1KiB").chunks(32L << 20)).isEqualTo(1);
    assertThat(Quantities.capacity("12").chunks(32L << 20)).isEqualTo(12);
  }

  @Test
  void shouldSayWhatACapacityShouldLookLike() {
    assertThatThrownBy(() -> Quantities.capacity("lots"))
        .hasMessage("expected chunks (4096) or a size (40GiB, 500MB), got 'lots'");
    assertThatThrownBy(() -> Quantities.capacity("0"))
        .hasMessage("a capacity is at least 1 chunk, got 0");
    assertThatThrownBy(() -> Quantities.capacity("1.5"))
        .hasMessage("a capacity in chunks is a whole number: 1.5");
    assertThatThrownBy(() -> Quantities.capacity("3 furlongs"))
        .hasMessage("unknown size unit 'furlongs' (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)");
  }

  @Test
  void shouldReadWindowSpans() {
    assertThat(Quantities.duration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Quantities.duration("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Quantities.duration("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(Quantities.duration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(Quantities.duration("2d")).isEqualTo(Duration.ofDays(2));
    assertThatThrownBy(() -> Quantities.duration("0s"))
        .hasMessage("a window is at least 1ms, got 0s");
    assertThatThrownBy(() -> Quantities.duration("5 minutes"))
        .hasMessageStartingWith("expected a duration such as 30s");
  }

  @Test
  void shouldPickRoundWindowsAndPrintThemBack() {
    assertThat(Quantities.niceWindow(Duration.ofHours(1), 60)).isEqualTo(Duration.ofMinutes(1));
    assertThat(Quantities.niceWindow(Duration.ofMinutes(68), 60)).isEqualTo(Duration.ofMinutes(2));
    assertThat(Quantities.niceWindow(Duration.ofSeconds(14), 60)).isEqualTo(Duration.ofMillis(500));
    assertThat(Quantities.niceWindow(Duration.ofSeconds(3), 60)).isEqualTo(Duration.ofMillis(100));
    assertThat(Quantities.niceWindow(Duration.ofDays(365), 60)).isEqualTo(Duration.ofDays(7));
    assertThat(Quantities.windowText(Duration.ofMinutes(2))).isEqualTo("2m");
    assertThat(Quantities.windowText(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(Quantities.span(Duration.ofSeconds(3725))).isEqualTo("1h 2m");
  }

  @Test
  void shouldPrintSizesInBinaryUnitsAndCountsShort() {
    assertThat(Quantities.binaryBytes(512)).isEqualTo("512 B");
    assertThat(Quantities.binaryBytes(4096)).isEqualTo("4.00 KiB");
    assertThat(Quantities.binaryBytes(40.0 * (1L << 30))).isEqualTo("40.0 GiB");
    assertThat(Quantities.binaryBytes(137.0 * (1L << 30))).isEqualTo("137 GiB");
    assertThat(Quantities.shortCount(950)).isEqualTo("950");
    assertThat(Quantities.shortCount(1000)).isEqualTo("1k");
    assertThat(Quantities.shortCount(67_098)).isEqualTo("67k");
    assertThat(Quantities.shortCount(2_500_000)).isEqualTo("2.5M");
    assertThat(Quantities.percent(0.8123)).isEqualTo("81.2%");
    assertThat(Quantities.percent(Double.NaN)).isEqualTo("n/a");
  }
}
