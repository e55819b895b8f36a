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

  /** A bound no test body reaches. */
  private static final CaptureMemory AMPLE = new CaptureMemory(1L << 40);

  @Test
  void shouldTakeNoMoreThanAFewKilobytesForAnnouncedBytesThatHaveNotArrived() {
    // When: a head says 16 MiB, no body byte has come
    BodyCapture capture = new BodyCapture(LIMIT, LIMIT, AMPLE);

    // Then
    assertThat(capture.bytes().length).isLessThanOrEqualTo(BodyCapture.INITIAL_BYTES);
  }

  @Test
  void shouldGrowWithTheBodyAndKeepEveryByte() {
    // Given
    byte[] body = new byte[3 * 1024 * 1024 + 17];
    new Random(3).nextBytes(body);
    BodyCapture capture = new BodyCapture(LIMIT, body.length, AMPLE);

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
    BodyCapture capture = new BodyCapture(LIMIT, body.length, AMPLE);

    // When
    capture.append(Buffer.buffer(body));

    // Then: the array was sized from the header and is handed out as it is
    assertThat(capture.toByteArray()).isSameAs(capture.bytes()).isEqualTo(body);
  }

  @Test
  void shouldStopAtTheLimitAndCountTheRest() {
    // Given
    BodyCapture capture = new BodyCapture(10, -1, AMPLE);

    // When
    capture.append(Buffer.buffer("0123456789abcdef"));

    // Then
    assertThat(capture.toByteArray()).isEqualTo("0123456789".getBytes());
    assertThat(capture.truncated()).isTrue();
    assertThat(capture.seen()).isEqualTo(16);
  }

  @Test
  void shouldReserveWhatTheArrayGrowsByAndGiveItBackOnRelease() {
    // Given
    CaptureMemory memory = new CaptureMemory(1L << 30);
    BodyCapture capture = new BodyCapture(LIMIT, -1, memory);

    // When: 200 KiB of a body of unknown length
    capture.append(Buffer.buffer(new byte[200 << 10]));

    // Then: the bound holds exactly the array
    assertThat(memory.used()).isEqualTo(capture.bytes().length).isGreaterThanOrEqualTo(200 << 10);

    // When the exchange hands its event off
    capture.release();

    // Then
    assertThat(memory.used()).isZero();
  }

  @Test
  void shouldLetTheBodyGoWhenTheBoundRefusesAGrowthAndKeepCounting() {
    // Given: a bound of 1 MiB, 900 KiB of it held by another exchange
    CaptureMemory memory = new CaptureMemory(1 << 20);
    assertThat(memory.tryReserve(900 << 10)).isTrue();
    BodyCapture capture = new BodyCapture(LIMIT, 2 << 20, memory);

    // When: 64 KiB fit, the next growth does not
    capture.append(Buffer.buffer(new byte[64 << 10]));
    assertThat(capture.shed()).isFalse();
    capture.append(Buffer.buffer(new byte[128 << 10]));

    // Then: the body is let go, its reservation given back, and later bytes only counted
    assertThat(capture.shed()).isTrue();
    assertThat(capture.length()).isZero();
    assertThat(memory.used()).isEqualTo(900 << 10);
    capture.append(Buffer.buffer(new byte[10]));
    assertThat(capture.length()).isZero();
    assertThat(capture.seen()).isEqualTo((64 << 10) + (128 << 10) + 10);
    assertThat(memory.used()).isEqualTo(900 << 10);
  }

  @Test
  void shouldNeverReserveAgainOnceReleased() {
    // Given: an exchange that ended while its request body was still streaming
    CaptureMemory memory = new CaptureMemory(1L << 30);
    BodyCapture capture = new BodyCapture(LIMIT, -1, memory);
    capture.append(Buffer.buffer(new byte[1000]));
    capture.release();

    // When: more of the body arrives
    capture.append(Buffer.buffer(new byte[1 << 20]));

    // Then: a finished exchange holds nothing of the bound
    assertThat(memory.used()).isZero();
  }
}
