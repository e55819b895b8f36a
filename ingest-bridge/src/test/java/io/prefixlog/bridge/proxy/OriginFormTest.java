package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OriginFormTest {
  @Test
  void shouldKeepTheOriginFormAsSent() {
    assertThat(OriginForm.of("/v1/chat/completions?n=1")).isEqualTo("/v1/chat/completions?n=1");
    assertThat(OriginForm.of("*")).isEqualTo("*");
  }

  @Test
  void shouldDropTheSchemeAndAuthorityOfAnAbsoluteForm() {
    assertThat(OriginForm.of("http://other.example:8443/v1/models?x=1"))
        .isEqualTo("/v1/models?x=1");
    assertThat(OriginForm.of("https://user:pw@other.example/v1/models")).isEqualTo("/v1/models");
    assertThat(OriginForm.of("http://other.example")).isEqualTo("/");
    assertThat(OriginForm.of("http://other.example?x=1")).isEqualTo("/?x=1");
    assertThat(OriginForm.of("http://other.example/a#frag")).isEqualTo("/a");
  }
}
