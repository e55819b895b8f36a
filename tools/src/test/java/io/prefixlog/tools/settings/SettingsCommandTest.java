package io.prefixlog.tools.settings;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.bridge.kv.KvBridgeConfig;
import io.prefixlog.bridge.proxy.ProxyConfig;
import io.prefixlog.cli.Terminal;
import io.prefixlog.streams.StreamAppConfig;
import io.prefixlog.tools.Command;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SettingsCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final SettingsCommand command = new SettingsCommand(Terminal.captured(out, err));

  @Test
  void shouldPrintOneServicesTableAsTheReadmeShowsIt() {
    // When
    int code = command.run(new String[] {"--service", "kv", "--markdown"});

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(KvBridgeConfig.DEFINITION.markdownTable());
  }

  @Test
  void shouldPrintEveryServiceByDefault() {
    // When
    int code = command.run(new String[0]);

    // Then
    assertThat(code).isEqualTo(Command.OK);
    assertThat(out.toString(StandardCharsets.UTF_8))
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
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "prefixlog settings: --service: unknown service 'router': expected stream-app, proxy"
                + " or kv\n");
  }
}
