package io.prefixlog.bridge.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The capture's memory follows the bytes that arrived, not the length a header announced (issue 13,
 * item 1: 400 sockets that sent only the head of a 16 MiB POST took 4.9 GB).
 */
class BodyCaptureTest {
  private static final long LIMIT = 16L << 20;

  @Test
  void shouldTakeNoMoreThanAFewKilobytesForAnnouncedBytesThatHaveNotArrived() {
    // When: a head says 16 MiB, no body byte has come
    BodyCapture capture = new BodyCapture(LIMIT, LIMIT);

    // Then
    assertThat(capture.bytes().length).isLessThanOrEqualTo(BodyCapture.INITIAL_BYTES);
  }

  @Test
  void shouldGrowWithTheBodyAndKeepEveryByte() {
    // Given
    byte[] body = new byte[3 * 1024 * 1024 + 17];
    new Random(3).nextBytes(body);
    BodyCapture capture = new BodyCapture(LIMIT, body.length);

    // When: the body in 64 KiB pieces
    for (int from = 0; from < body.length; from += 65_536) {
      capture.append(
          Buffer.buffer(Arrays.copyOfRange(body, from, Math.min(body.length, from + 65_536))));
      // Then: never much more than what arrived
      assertThat((long) capture.bytes().length)
          .isLessThanOrEqualTo(Math.max(BodyCapture.INITIAL_BYTES, 2L * capture.length()));
    }

    // Then
    assertThat(capture.toByteArray()).isEqualTo(body);
    assertThat(capture.bytes().length)
        .isEqualTo(body.length); // the last growth stops at the length
    assertThat(capture.truncated()).isFalse();
  }

  @Test
  void shouldCopyASmallAnnouncedBodyOnce() {
    // Given
    byte[] body = "{\"model\":\"m\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    BodyCapture capture = new BodyCapture(LIMIT, body.length);

    // When
    capture.append(Buffer.buffer(body));

    // Then: the array was sized from the header and is handed out as it is
    assertThat(capture.toByteArray()).isSameAs(capture.bytes()).isEqualTo(body);
  }

  @Test
  void shouldStopAtTheLimitAndCountTheRest() {
    // Given
    BodyCapture capture = new BodyCapture(10, -1);

    // When
    capture.append(Buffer.buffer("0123456789abcdef"));

    // Then
    assertThat(capture.toByteArray()).isEqualTo("0123456789".getBytes());
    assertThat(capture.truncated()).isTrue();
    assertThat(capture.seen()).isEqualTo(16);
  }
}
