package io.prefixlog.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaBrokerTest {
  @Test
  void shouldRefuseATakenFixedPortBeforeStartingAnything(@TempDir Path dir) throws Exception {
    // Given
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();

      // When / Then
      assertThatThrownBy(
              () -> KafkaBroker.start(KafkaBroker.Options.defaults(dir).withBrokerPort(port)))
          .isInstanceOf(StartupException.class)
          .hasMessage(
              "Kafka broker port "
                  + port
                  + " on 127.0.0.1 is already in use (Address already in use)")
          .extracting(e -> ((StartupException) e).logFile())
          .isEqualTo(dir.resolve("broker.log"));
      assertThat(Files.list(dir)).isEmpty();
    }
  }

  @Test
  void shouldExposeTheSingleNodeSettingsUnmodifiable() {
    // When / Then
    assertThatThrownBy(() -> KafkaBroker.singleNodeSettings().put("num.partitions", "3"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(KafkaBroker.singleNodeSettings())
        .containsEntry("transaction.state.log.replication.factor", "1")
        .containsEntry("transaction.state.log.min.isr", "1")
        .containsEntry("auto.create.topics.enable", "false")
        .hasSize(19);
  }
}
