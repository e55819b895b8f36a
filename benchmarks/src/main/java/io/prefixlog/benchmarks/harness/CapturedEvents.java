package io.prefixlog.benchmarks.harness;

import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import java.util.Random;
import java.util.UUID;

/**
 * What the benchmarks that generate captured traffic put into its raw request events ({@link
 * io.prefixlog.tools.replay.ReplayEvents#chatCompletion}) besides their bodies: seeded request ids
 * and the engine's answers.
 */
public final class CapturedEvents {
  private CapturedEvents() {}

  /**
   * A request id drawn from {@code random}: a version 4 UUID, so that a seed gives the same ids
   * again.
   */
  public static String requestId(Random random) {
    return new UUID(
            random.nextLong() & ~0xF000L | 0x4000L,
            random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L)
        .toString();
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
