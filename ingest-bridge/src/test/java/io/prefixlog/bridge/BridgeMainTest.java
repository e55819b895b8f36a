package io.prefixlog.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BridgeMainTest {
  @Test
  void shouldRefuseToStartWithNothingToRunOrABadSetting() {
    assertThat(BridgeMain.run(new String[0], Map.of())).isEqualTo(2);
    assertThat(BridgeMain.run(new String[] {"--bogus"}, Map.of())).isEqualTo(2);
    assertThat(BridgeMain.run(new String[0], Map.of("PREFIXLOG_PROXY_UPSTREAM", "ftp://x")))
        .isEqualTo(2);
    assertThat(
            BridgeMain.run(
                new String[0],
                Map.of(
                    "PREFIXLOG_PROXY_UPSTREAM", "http://127.0.0.1:8000",
                    "PREFIXLOG_KV_ENDPOINTS", "tcp://*:5557")))
        .isEqualTo(2);
  }
}
