package io.prefixlog.schemas.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DeltaRecordTest {

  @Test
  void shouldKeyARecordBySessionKeySlashChainSlashSeq() {
    // Given
    String sessionKey = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";

    // When
    String key = DeltaRecord.key(sessionKey, "0a1b2c3d", 12);

    // Then
    assertThat(key).isEqualTo("3f9a0c5e71b2d48a6c0e9f1b2a7d3c58/0a1b2c3d/12");
  }

  @Test
  void shouldKeyAVersion2RecordWithoutAChainBySessionKeySlashSeq() {
    // Given
    String sessionKey = "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58";

    // When
    String key = DeltaRecord.key(sessionKey, null, 12);

    // Then
    assertThat(key).isEqualTo("3f9a0c5e71b2d48a6c0e9f1b2a7d3c58/12");
  }

  @ParameterizedTest
  @CsvSource({
    "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58/12, 3f9a0c5e71b2d48a6c0e9f1b2a7d3c58",
    "3f9a0c5e71b2d48a6c0e9f1b2a7d3c58/0a1b2c3d/12, 3f9a0c5e71b2d48a6c0e9f1b2a7d3c58",
    "a/1, a",
  })
  void shouldTakeTheSessionOfAKeyFromBeforeItsFirstSlash(String key, String session) {
    // Given
    String recordKey = key;

    // When
    String sessionOfKey = DeltaRecord.sessionOfKey(recordKey);

    // Then
    assertThat(sessionOfKey).isEqualTo(session);
  }

  @Test
  void shouldRecoverTheSessionOfEveryKeyItBuilds() {
    // Given
    String sessionKey = "4a0e6c2d8b1f3957";

    // When
    String session =
        DeltaRecord.sessionOfKey(DeltaRecord.key(sessionKey, "ffffffff", Long.MAX_VALUE));

    // Then
    assertThat(session).isEqualTo(sessionKey);
  }

  @ParameterizedTest
  @ValueSource(strings = {"no-slash", "/12", ""})
  void shouldRejectAKeyWithoutASessionPart(String key) {
    // Given
    String recordKey = key;

    // When
    Throwable thrown = catchThrowable(() -> DeltaRecord.sessionOfKey(recordKey));

    // Then
    assertThat(thrown)
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("delta key is not session_key/chain/seq nor session_key/seq: " + recordKey);
  }
}
