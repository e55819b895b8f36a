package io.prefixlog.core.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TurnKeyTest {
  @Test
  void shouldParseSessionChainAndSeqOfAVersion3Key() {
    // Given
    String key = "a/0a1b2c3d/12";

    // When
    Optional<TurnKey> parsed = TurnKey.parse(key);

    // Then
    assertThat(parsed).contains(new TurnKey("a", "0a1b2c3d", 12));
    assertThat(parsed.orElseThrow().chainKey()).isEqualTo("a/0a1b2c3d");
    assertThat(parsed.orElseThrow().toString()).isEqualTo(key);
  }

  @Test
  void shouldParseAVersion2KeyAsTheEmptyChain() {
    // Given
    String key = "abc/12";

    // When
    Optional<TurnKey> parsed = TurnKey.parse(key);

    // Then
    assertThat(parsed).contains(new TurnKey("abc", "", 12));
    assertThat(parsed.orElseThrow().chainKey()).isEqualTo("abc");
    assertThat(parsed.orElseThrow().toString()).isEqualTo(key);
  }

  @Test
  void shouldRejectKeysThatAreNotSessionSlashSeq() {
    // Given
    String[] keys = {
      null,
      "",
      "abc",
      "/5",
      "abc/",
      "abc/0",
      "abc/-1",
      "abc/+1",
      "abc/1x",
      "abc/99999999999999999999",
      "abc//1",
      "a/b/c/1"
    };

    // When / Then
    for (String key : keys) {
      assertThat(TurnKey.parse(key)).as(String.valueOf(key)).isEmpty();
    }
  }
}
