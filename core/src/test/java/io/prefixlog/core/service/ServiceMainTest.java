package io.prefixlog.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.config.ConfigDef;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.ConfigKey;
import io.prefixlog.core.config.ConfigTypes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceMainTest {
  @TempDir Path dir;

  @Test
  void shouldExitTwoOnUnknownArgumentsWithoutConfiguring() {
    AtomicInteger configured = new AtomicInteger();
    int code =
        ServiceMain.run(
            "Main",
            "test",
            new String[] {"--bogus"},
            Map.of(),
            settings -> {
              configured.incrementAndGet();
              return null;
            });
    assertThat(code).isEqualTo(2);
    assertThat(configured).hasValue(0);
  }

  @Test
  void shouldPrintTheSettingsTablesOnHelpWithoutConfiguring() {
    // Given
    AtomicInteger configured = new AtomicInteger();
    ConfigDef settings =
        ConfigDef.of(
            "test service",
            List.of(
                ConfigKey.of("PREFIXLOG_T_PORT", ConfigTypes.integer(0, 65535))
                    .defaultValue(8000)
                    .doc("the `port`")));
    PrintStream saved = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    // When
    int code;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      code =
          ServiceMain.run(
              "Main",
              "test",
              new String[] {"--help"},
              Map.of(),
              List.of(settings),
              s -> {
                configured.incrementAndGet();
                return null;
              });
    } finally {
      System.setOut(saved);
    }

    // Then
    assertThat(code).isZero();
    assertThat(configured).hasValue(0);
    assertThat(out.toString(StandardCharsets.UTF_8))
        .startsWith("usage: Main [--config FILE | --help]\n")
        .endsWith(
            "Settings of the test service (environment variables):\n"
                + "  PREFIXLOG_T_PORT  (integer 0–65535; default 8000)\n"
                + "      the port\n");
  }

  @Test
  void shouldExitTwoOnABadSetting() {
    int code =
        ServiceMain.run(
            "Main",
            "test",
            new String[0],
            Map.of(),
            settings -> {
              throw new ConfigException("PREFIXLOG_X=1: expected more");
            });
    assertThat(code).isEqualTo(2);
  }

  @Test
  void shouldReadTheConfigFileAndCloseAServiceThatFailsToStart() throws IOException {
    // Given: a properties file named by --config, overridden by the environment
    Path file = dir.resolve("app.properties");
    Files.writeString(file, "PREFIXLOG_A=from-file\nPREFIXLOG_B=from-file\n");
    AtomicReference<String> seen = new AtomicReference<>();
    AtomicInteger closed = new AtomicInteger();

    // When
    int code =
        ServiceMain.run(
            "Main",
            "test",
            new String[] {"--config", file.toString()},
            Map.of("PREFIXLOG_B", "from-env"),
            settings -> {
              seen.set(
                  settings.string("PREFIXLOG_A", null)
                      + ","
                      + settings.string("PREFIXLOG_B", null));
              return new ServiceMain.Service() {
                @Override
                public void start() throws IOException {
                  throw new IOException("port in use");
                }

                @Override
                public void close() {
                  closed.incrementAndGet();
                }
              };
            });

    // Then
    assertThat(code).isEqualTo(1);
    assertThat(seen).hasValue("from-file,from-env");
    assertThat(closed.get()).isGreaterThanOrEqualTo(1);
  }
}
