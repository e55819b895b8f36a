package io.prefixlog.tools.reconstruct;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BodyFilesTest {
  @Test
  void shouldKeepHexKeysAndEncodeEverythingThatCouldLeaveTheDirectory() {
    assertThat(BodyFiles.safeName("e0fb7eeb89d559068483d29e180fba72"))
        .isEqualTo("e0fb7eeb89d559068483d29e180fba72");
    assertThat(BodyFiles.safeName("../x/y")).isEqualTo("..%2Fx%2Fy");
    assertThat(BodyFiles.safeName("..")).isEqualTo("%2E%2E");
    assertThat(BodyFiles.safeName(".")).isEqualTo("%2E");
    assertThat(BodyFiles.safeName("a b\\é")).isEqualTo("a%20b%5C%C3%A9");
  }
}
