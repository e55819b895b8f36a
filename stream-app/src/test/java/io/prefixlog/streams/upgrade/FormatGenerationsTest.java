package io.prefixlog.streams.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import io.prefixlog.streams.StreamAppConfig;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FormatGenerationsTest {
  /** A table as the next format change makes it: generation 2 writes session states version 4. */
  private static final FormatGenerations TWO =
      new FormatGenerations(List.of(generation(1, 3), generation(2, 4)));

  @Test
  void shouldWriteTheNewestGenerationWhenNoUpgradeIsUnderWay() {
    // When
    FormatGeneration written = TWO.toWrite(null);

    // Then
    assertThat(written.number()).isEqualTo(2);
    assertThat(written.version(WireFormat.SESSION_STATE)).isEqualTo(4);
    assertThat(written.version(WireFormat.DELTA_RECORD)).isEqualTo(1);
  }

  @Test
  void shouldKeepWritingTheGenerationBeingUpgradedFrom() {
    // When
    FormatGeneration fromOne = TWO.toWrite(1);
    FormatGeneration fromTwo = TWO.toWrite(2);

    // Then
    assertThat(fromOne.number()).isEqualTo(1);
    assertThat(fromOne.version(WireFormat.SESSION_STATE)).isEqualTo(3);
    assertThat(fromTwo.version(WireFormat.SESSION_STATE)).isEqualTo(4);
  }

  @Test
  void shouldRefuseAnUpgradeFromNoGenerationHasNamingTheAcceptedOnes() {
    // Given
    var type = TWO.settingType();

    // When / Then
    assertThatThrownBy(() -> type.parse("PREFIXLOG_UPGRADE_FROM", "3"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "PREFIXLOG_UPGRADE_FROM=3: expected the format generation of the build being upgraded"
                + " from, one of 1 or 2 (the generations this build reads)");
    assertThatThrownBy(() -> type.parse("PREFIXLOG_UPGRADE_FROM", "0.4.2"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("PREFIXLOG_UPGRADE_FROM=0.4.2: expected the format generation");
    assertThat(type.parse("PREFIXLOG_UPGRADE_FROM", " 1 ")).isEqualTo(1);
    assertThat(type.describe()).isEqualTo("format generation 1 or 2");
  }

  @Test
  void shouldReadUpgradeFromAsASettingOfTheStreamApp() {
    // When
    StreamAppConfig upgrading = StreamAppConfig.defaults(Map.of("PREFIXLOG_UPGRADE_FROM", "1"));
    StreamAppConfig settled = StreamAppConfig.defaults(Map.of());

    // Then
    assertThat(upgrading.formatsToWrite()).isEqualTo(FormatGenerations.KNOWN.toWrite(1));
    assertThat(settled.formatsToWrite()).isEqualTo(FormatGenerations.KNOWN.newest());
    assertThatThrownBy(() -> StreamAppConfig.defaults(Map.of("PREFIXLOG_UPGRADE_FROM", "5")))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "PREFIXLOG_UPGRADE_FROM=5: expected the format generation of the build being upgraded"
                + " from, one of 1, 2, 3 or 4 (the generations this build reads)");
  }

  @Test
  void shouldRefuseATableThatSkipsAGenerationOrTakesAVersionBack() {
    assertThatThrownBy(() -> new FormatGenerations(List.of(generation(1, 3), generation(3, 4))))
        .hasMessage("format generation 3 follows 1");
    assertThatThrownBy(() -> new FormatGenerations(List.of(generation(1, 4), generation(2, 3))))
        .hasMessage(
            "format generation 2 writes SESSION_STATE version 3, older than generation 1's 4");
    assertThatThrownBy(() -> new FormatGenerations(List.of(generation(1, 3), generation(2, 3))))
        .hasMessage("format generation 2 changes no format");
  }

  @Test
  void shouldRefuseAGenerationWithoutAVersionOfEveryFormat() {
    // Given
    Map<WireFormat, Integer> versions = new EnumMap<>(generation(1, 3).versions());
    versions.remove(WireFormat.SEEN_REQUEST);

    // When / Then
    assertThatThrownBy(() -> new FormatGeneration(1, versions))
        .hasMessage("format generation 1 has no version of [SEEN_REQUEST]");
  }

  /** Every format at version 1, the session state at {@code sessionState}. */
  private static FormatGeneration generation(int number, int sessionState) {
    Map<WireFormat, Integer> versions = new EnumMap<>(WireFormat.class);
    for (WireFormat format : WireFormat.values()) {
      versions.put(format, 1);
    }
    versions.put(WireFormat.SESSION_STATE, sessionState);
    return new FormatGeneration(number, versions);
  }
}
