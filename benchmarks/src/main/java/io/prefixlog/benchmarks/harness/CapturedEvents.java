package io.prefixlog.benchmarks.harness;

import io.prefixlog.core.session.SessionKey;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import io.prefixlog.tools.replay.ReplayEvents;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Raw request events of generated chat completions, as the capture proxy writes them: the
 * benchmarks that generate traffic differ in their bodies and responses, not in this.
 */
public final class CapturedEvents {
  private CapturedEvents() {}

  /**
   * The event of one {@code POST /v1/chat/completions}, with a request id drawn from {@code random}
   * (a version 4 UUID, so a seed gives the same ids again).
   */
  public static RawRequestEvent chatCompletion(
      Random random,
      long tsMs,
      SessionKey key,
      String clientAddr,
      String userAgent,
      Map<String, String> headers,
      String model,
      byte[] body,
      ResponseInfo response) {
    return ReplayEvents.chatCompletion(
        new UUID(
                random.nextLong() & ~0xF000L | 0x4000L,
                random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L)
            .toString(),
        tsMs,
        key,
        clientAddr,
        userAgent,
        headers.isEmpty() ? null : headers,
        model,
        body,
        response);
  }

  /**
   * A 200 answer of the engine: {@code firstByteMs} capped at the whole {@code latencyMs}, as a
   * client times them.
   */
  public static ResponseInfo answer(
      double latencyMs, double firstByteMs, Usage usage, String completionId) {
    return new ResponseInfo(
        200, latencyMs, Math.min(latencyMs, firstByteMs), usage, completionId, null);
  }
}
