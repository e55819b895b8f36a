package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;

class UpstreamLabelTest {
  @Test
  void shouldNameTheUpstreamBySchemeHostAndPortWithoutItsUserInformation() {
    // Given
    URI plain = URI.create("http://Engine-0.internal:8000");
    URI defaultPort = URI.create("https://engine-1.internal/");
    URI withUser = URI.create("http://admin:s3cret@10.0.3.17");
    URI ipv6 = URI.create("http://[::1]:9000");

    // When / Then
    assertThat(EventFactory.upstreamLabel(plain)).isEqualTo("http://engine-0.internal:8000");
    assertThat(EventFactory.upstreamLabel(defaultPort)).isEqualTo("https://engine-1.internal:443");
    assertThat(EventFactory.upstreamLabel(withUser)).isEqualTo("http://10.0.3.17:80");
    assertThat(EventFactory.upstreamLabel(ipv6)).isEqualTo("http://[::1]:9000");
  }
}
