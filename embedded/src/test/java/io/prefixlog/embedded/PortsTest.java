package io.prefixlog.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PortsTest {
  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  @Test
  void shouldPickPortsTheKernelDoesNotHandToOutgoingConnectionsMeanwhile() throws IOException {
    // Given: the kernel's ephemeral range, from which every connect() takes its local port (a
    // port picked there can be taken by the test's own Kafka clients before the child binds it;
    // that is how ImageLayoutIT's demo engine once failed with ZMQ's EADDRINUSE)
    assumeThat(Files.isReadable(EPHEMERAL_RANGE)).isTrue();
    int[] range =
        Arrays.stream(Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+"))
            .mapToInt(Integer::parseInt)
            .toArray();

    // When
    int[] picked = Ports.free("127.0.0.1", 50);

    // Then: all distinct, none in the ephemeral range, all unprivileged
    assertThat(picked).doesNotHaveDuplicates().hasSize(50);
    assertThat(Arrays.stream(picked).boxed())
        .allSatisfy(port -> assertThat(port < range[0] || port > range[1]).as("%d", port).isTrue())
        .allSatisfy(port -> assertThat(port).isGreaterThanOrEqualTo(1024));
  }

  @Test
  void shouldPickOnePortTheSameWay() {
    assertThat(Ports.free("127.0.0.1")).isBetween(1024, 65535);
  }
}
