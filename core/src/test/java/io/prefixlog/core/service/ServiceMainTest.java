package io.prefixlog.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.prefixlog.core.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
