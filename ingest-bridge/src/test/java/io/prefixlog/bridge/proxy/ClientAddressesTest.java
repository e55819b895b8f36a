package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.bridge.proxy.CaptureConfig.ClientAddrMode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every captured header that carries a client address follows {@code PREFIXLOG_CLIENT_ADDR}, not
 * only {@code client_addr} (issue 13, item 3): behind a load balancer the real address is in {@code
 * X-Forwarded-For} and its relatives.
 */
class ClientAddressesTest {
  private static final Map<String, String> BEHIND_A_BALANCER =
      Map.of(
          "x-forwarded-for", "203.0.113.7, 10.0.0.2",
          "x-real-ip", "203.0.113.7",
          "forwarded", "for=203.0.113.7;proto=https, for=\"[2001:db8:cafe::17]:4711\"",
          "x-forwarded-proto", "https",
          "x-session-id", "s-1");

  @Test
  void shouldLeaveNoAddressHeaderWhenAddressesAreOmitted() {
    // Given
    ClientAddresses addresses = new ClientAddresses(ClientAddrMode.OMIT, "secret-0123456789abcd");

    // When
    Map<String, String> recorded = addresses.headers(BEHIND_A_BALANCER);

    // Then
    assertThat(recorded)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("x-forwarded-proto", "https", "x-session-id", "s-1"));
  }

  @Test
  void shouldTruncateEveryAddressOfEveryAddressHeader() {
    // Given
    ClientAddresses addresses =
        new ClientAddresses(ClientAddrMode.TRUNCATE, "secret-0123456789abcd");

    // When
    Map<String, String> recorded = addresses.headers(BEHIND_A_BALANCER);

    // Then
    assertThat(recorded)
        .containsEntry("x-forwarded-for", "203.0.113.0/24, 10.0.0.0/24")
        .containsEntry("x-real-ip", "203.0.113.0/24")
        .containsEntry(
            "forwarded", "for=\"203.0.113.0/24\";proto=https, for=\"2001:db8:cafe:0:0:0:0:0/48\"")
        .containsEntry("x-forwarded-proto", "https");
    assertThat(String.join(" ", recorded.values())).doesNotContain("203.0.113.7", "::17");
  }

  @Test
  void shouldHashEveryAddressOfEveryAddressHeaderAsClientAddrIsHashed() {
    // Given
    ClientAddresses addresses = new ClientAddresses(ClientAddrMode.HASH, "secret-0123456789abcd");
    String hashed = addresses.record("203.0.113.7");

    // When
    Map<String, String> recorded = addresses.headers(BEHIND_A_BALANCER);

    // Then
    assertThat(recorded.get("x-forwarded-for"))
        .isEqualTo(hashed + ", " + addresses.record("10.0.0.2"));
    assertThat(recorded.get("x-real-ip")).isEqualTo(hashed);
    assertThat(recorded.get("forwarded"))
        .startsWith("for=\"" + hashed + "\";proto=https, for=\"h:")
        .doesNotContain("2001:db8");
  }

  @Test
  void shouldKeepAddressHeadersVerbatimWhenAddressesAreKeptInFull() {
    // Given
    ClientAddresses addresses = new ClientAddresses(ClientAddrMode.FULL, "secret-0123456789abcd");

    // When / Then
    assertThat(addresses.headers(BEHIND_A_BALANCER)).isEqualTo(BEHIND_A_BALANCER);
  }
}
