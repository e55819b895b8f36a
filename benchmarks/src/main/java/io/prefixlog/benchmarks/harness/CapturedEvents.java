package io.prefixlog.benchmarks.harness;

import io.prefixlog.core.session.SessionKey;
import io.prefixlog.core.text.Sha256;
import io.prefixlog.schemas.request.BodyEncoding;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
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
    BodyEncoding.EncodedBody encoded = BodyEncoding.encode(body);
    return new RawRequestEvent(
        RawRequestEvent.SCHEMA_VERSION,
        new UUID(
                random.nextLong() & ~0xF000L | 0x4000L,
                random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L)
            .toString(),
        tsMs,
        key.key(),
        key.source(),
        clientAddr,
        userAgent,
        headers.isEmpty() ? null : headers,
        "POST",
        "/v1/chat/completions",
        model,
        encoded.text(),
        encoded.encoding().wireName(),
        (long) body.length,
        Sha256.hex(body),
        false,
        null,
        response,
        null,
        null,
        null,
        null,
        null);
  }
}
