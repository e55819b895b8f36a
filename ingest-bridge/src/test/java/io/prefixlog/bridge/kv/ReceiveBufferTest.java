package io.prefixlog.bridge.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReceiveBufferTest {

  @Test
  void shouldRefuseBytesBeyondItsBoundUntilTheHandledAreReleased() {
    // Given
    ReceiveBuffer buffer = new ReceiveBuffer(1_000);

    // When
    boolean first = buffer.reserve(600);
    boolean second = buffer.reserve(401);
    boolean exact = buffer.reserve(400);
    boolean beyond = buffer.reserve(1);
    buffer.release(600);
    boolean afterRelease = buffer.reserve(600);

    // Then
    assertThat(List.of(first, second, exact, beyond, afterRelease))
        .containsExactly(true, false, true, false, true);
    assertThat(buffer.bytes()).isEqualTo(1_000);
  }

  @Test
  void shouldKeepMessagesInOrderWithOneCatchUpForConnectionsNotYetTaken() throws Exception {
    // Given
    ReceiveBuffer buffer = new ReceiveBuffer(1_000);
    ReceiveBuffer.Message a = new ReceiveBuffer.Message(List.of(new byte[] {1}), 257);
    ReceiveBuffer.Message b = new ReceiveBuffer.Message(List.of(new byte[] {2}), 257);

    // When
    buffer.connected();
    buffer.connected();
    buffer.put(a);
    buffer.connected();
    buffer.put(b);

    // Then: the second and third connection are covered by the catch-up still waiting
    assertThat(buffer.poll(1, TimeUnit.MILLISECONDS)).isEqualTo(ReceiveBuffer.Connected.INSTANCE);
    assertThat(buffer.poll(1, TimeUnit.MILLISECONDS)).isSameAs(a);
    assertThat(buffer.poll(1, TimeUnit.MILLISECONDS)).isSameAs(b);
    assertThat(buffer.poll(1, TimeUnit.MILLISECONDS)).isNull();
    // and one taken, the next connection queues another
    buffer.connected();
    assertThat(buffer.poll(1, TimeUnit.MILLISECONDS)).isEqualTo(ReceiveBuffer.Connected.INSTANCE);
  }
}
