package io.prefixlog.core.rebuild;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class TurnKeyTest {
  @Test
  void shouldParseTheSeqAfterTheLastSlash() {
    // Given
    String key = "a/b/12";

    // When
    Optional<TurnKey> parsed = TurnKey.parse(key);

    // Then
    assertThat(parsed).contains(new TurnKey("a/b", 12));
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
      "abc/99999999999999999999"
    };

    // When / Then
    for (String key : keys) {
      assertThat(TurnKey.parse(key)).as(String.valueOf(key)).isEmpty();
    }
  }
}
