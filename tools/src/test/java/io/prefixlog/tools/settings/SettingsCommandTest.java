package io.prefixlog.tools.settings;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.CapturedTerminal;
import io.prefixlog.tools.Command;
import org.junit.jupiter.api.Test;

class SettingsCommandTest {
  private final CapturedTerminal console = new CapturedTerminal();
  private final SettingsCommand command = new SettingsCommand(console.terminal());

  @Test
  void shouldPrintOneServicesTableAsTheReadmeShowsIt() {
    // When
    int code = command.run(new String[] {"--service", "kv", "--markdown"});

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out()).isEqualTo(KvBridgeConfig.DEFINITION.markdownTable());
  }

  @Test
  void shouldPrintEveryServiceByDefault() {
    // When
    int code = command.run(new String[0]);

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(console.out())
        .isEqualTo(
            StreamAppConfig.DEFINITION.helpText()
                + "\n"
                + ProxyConfig.DEFINITION.helpText()
                + "\n"
                + KvBridgeConfig.DEFINITION.helpText());
  }

  @Test
  void shouldRefuseAnUnknownServiceNamingTheChoices() {
    // When
    int code = command.run(new String[] {"--service", "router"});

    // Then
    assertThat(code).isEqualTo(Command.USAGE);
    assertThat(console.err())
        .isEqualTo(
            "prefixlog settings: --service: unknown service 'router': expected stream-app, proxy"
                + " or kv\n");
  }
}
