package io.prefixlog.core.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prefixlog.core.config.ConfigException;
import java.net.InetAddress;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class HostCheckTest {
  private static final HostCheck DEFAULTS = HostCheck.of(List.of());

  @Test
  void shouldAnswerAddressesLocalhostAndThisMachinesName() throws Exception {
    String machine = InetAddress.getLocalHost().getHostName().toLowerCase(Locale.ROOT);
    for (String host :
        List.of(
            "127.0.0.1:9464",
            "127.0.0.1",
            "10.1.2.3:8470",
            "[::1]:9464",
            "[::1]",
            "localhost:9464",
            "LOCALHOST",
            "ui.localhost:8470",
            "localhost.:9464",
            machine + ":9464")) {
      assertThat(DEFAULTS.refusal(host, null)).as(host).isEmpty();
    }
  }

  @Test
  void shouldRefuseAnotherNameAsARebindingPageSendsIt() {
    for (String host :
        List.of(
            "attacker.example:9464",
            "attacker.example",
            "localhost.attacker.example",
            "127.0.0.1.nip.io:9464",
            "stream-app:9464",
            "evil:port",
            ":9464")) {
      assertThat(DEFAULTS.refusal(host, null)).as(host).contains(HostCheck.Reason.HOST);
    }
  }

  @Test
  void shouldAnswerTheNamesTheOperatorLists() {
    HostCheck check = HostCheck.SETTING.type().parse("K", "stream-app, .prefixlog.internal");

    assertThat(check.refusal("stream-app:9464", null)).isEmpty();
    assertThat(check.refusal("STREAM-APP", null)).isEmpty();
    assertThat(check.refusal("a.prefixlog.internal:9464", null)).isEmpty();
    assertThat(check.refusal("prefixlog.internal", null)).isEmpty();
    assertThat(check.refusal("ingest-bridge:9465", null)).contains(HostCheck.Reason.HOST);
    assertThat(check.refusal("xprefixlog.internal", null)).contains(HostCheck.Reason.HOST);
    assertThat(HostCheck.of(List.of("*")).refusal("anything.example", null)).isEmpty();
  }

  @Test
  void shouldAnswerARequestWithoutHostAsOnlyNonBrowsersSendOne() {
    assertThat(DEFAULTS.refusal(null, null)).isEmpty();
    assertThat(DEFAULTS.refusal("", null)).isEmpty();
  }

  @Test
  void shouldRefuseAnOriginThatIsNotTheServicesOwn() {
    assertThat(DEFAULTS.refusal("127.0.0.1:8470", "http://127.0.0.1:8470")).isEmpty();
    assertThat(DEFAULTS.refusal("localhost", "http://localhost")).isEmpty();
    assertThat(DEFAULTS.refusal("localhost:80", "http://localhost")).isEmpty();
    assertThat(DEFAULTS.refusal("[::1]:8470", "http://[::1]:8470")).isEmpty();
    // Behind a TLS-terminating proxy the page is https and the service plain: the authority counts
    HostCheck behindTls = HostCheck.of(List.of("ui.example"));
    assertThat(behindTls.refusal("ui.example", "https://ui.example")).isEmpty();
    for (String origin :
        List.of(
            "http://attacker.example", "http://127.0.0.1:3000", "null", "file://", "not a uri")) {
      assertThat(DEFAULTS.refusal("127.0.0.1:8470", origin))
          .as(origin)
          .isEqualTo(Optional.of(HostCheck.Reason.ORIGIN));
    }
    assertThat(DEFAULTS.refusal(null, "http://127.0.0.1:8470")).contains(HostCheck.Reason.ORIGIN);
  }

  @Test
  void shouldRefuseASettingThatIsNotAName() {
    assertThatThrownBy(() -> HostCheck.SETTING.type().parse("PREFIXLOG_ALLOWED_HOSTS", "a b"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("PREFIXLOG_ALLOWED_HOSTS")
        .hasMessageContaining("'a b'");
    assertThatThrownBy(() -> HostCheck.of(List.of("host:80")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
