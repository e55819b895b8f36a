package io.prefixlog.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaBrokerOptionsTest {
  private static final Path DIR = Path.of("/var/tmp/prefixlog-broker");

  @Test
  void shouldDefaultToLoopbackFreePortsAndASmallHeap() {
    // When
    KafkaBroker.Options options = KafkaBroker.Options.defaults(DIR);

    // Then
    assertThat(options)
        .isEqualTo(
            new KafkaBroker.Options(DIR, "127.0.0.1", 0, 0, 512, Map.of(), Duration.ofSeconds(60)));
  }

  @Test
  void shouldApplyEveryWither() {
    // When
    KafkaBroker.Options options =
        KafkaBroker.Options.defaults(DIR)
            .withHost("localhost")
            .withBrokerPort(9092)
            .withControllerPort(9093)
            .withHeapMiB(256)
            .withBrokerProperty("log.retention.ms", "60000")
            .withBrokerProperty("compression.type", "zstd")
            .withStartTimeout(Duration.ofSeconds(5));

    // Then
    assertThat(options)
        .isEqualTo(
            new KafkaBroker.Options(
                DIR,
                "localhost",
                9092,
                9093,
                256,
                Map.of("compression.type", "zstd", "log.retention.ms", "60000"),
                Duration.ofSeconds(5)));
    assertThat(options.brokerProperties().keySet())
        .containsExactly("compression.type", "log.retention.ms");
  }

  @Test
  void shouldMakeTheDataDirAbsolute() {
    // When
    KafkaBroker.Options options = KafkaBroker.Options.defaults(Path.of("target/x/../broker"));

    // Then
    assertThat(options.dataDir()).isEqualTo(Path.of("target/broker").toAbsolutePath());
  }

  @Test
  void shouldRejectAnOutOfRangePortNamingIt() {
    // When / Then
    assertThatThrownBy(() -> KafkaBroker.Options.defaults(DIR).withBrokerPort(70000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("brokerPort must be 0 (pick a free port) or 1-65535 but was 70000");
  }

  @Test
  void shouldRejectEqualBrokerAndControllerPorts() {
    // When / Then
    assertThatThrownBy(
            () -> KafkaBroker.Options.defaults(DIR).withBrokerPort(9092).withControllerPort(9092))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("brokerPort and controllerPort must differ but both were 9092");
  }

  @Test
  void shouldRejectATinyHeapNamingIt() {
    // When / Then
    assertThatThrownBy(() -> KafkaBroker.Options.defaults(DIR).withHeapMiB(64))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("heapMiB must be at least 128 but was 64");
  }

  @Test
  void shouldRejectAnIpv6HostLiteral() {
    // When / Then
    assertThatThrownBy(() -> KafkaBroker.Options.defaults(DIR).withHost("::1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host must be a hostname or IPv4 literal but was '::1'");
  }

  @Test
  void shouldRejectAMultiLineBrokerPropertyNamingIt() {
    // When / Then
    assertThatThrownBy(
            () -> KafkaBroker.Options.defaults(DIR).withBrokerProperty("log.dirs", "/a\n/b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("broker property log.dirs must be one line but was '/a\n/b'");
  }

  @Test
  void shouldRejectABadBrokerPropertyKeyNamingIt() {
    // When / Then
    assertThatThrownBy(() -> KafkaBroker.Options.defaults(DIR).withBrokerProperty("a b", "1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("broker property key must match [A-Za-z0-9._-]+ but was 'a b'");
  }
}
